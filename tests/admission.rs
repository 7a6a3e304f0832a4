//! Admission plugins through kubectl: LimitRanger, ResourceQuota, PodSecurity and ValidatingAdmissionPolicy
//! (and webhook configurations, which are only stored), with the exact lines kubectl prints.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn create(c: &mut Cluster, manifest: &str) -> (String, Option<i32>) {
    let r = c.kubectl("create -f -", Some(manifest.to_string()), 120_000);
    (r.output, r.exit)
}

fn ok(line: &str) -> (String, Option<i32>) {
    (format!("{line}\n"), Some(0))
}

fn refused(line: &str) -> (String, Option<i32>) {
    (format!("{line}\n"), Some(1))
}

/// A pod with one container per name (image nginx:1.27) and extra container YAML (indented 4) for each.
fn pod(name: &str, namespace: &str, containers: &[(&str, &str)]) -> String {
    let mut s = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\nspec:\n  containers:\n"
    );
    for (c, extra) in containers {
        s.push_str(&format!("  - name: {c}\n    image: nginx:1.27\n{extra}"));
    }
    s
}

fn namespace(name: &str, labels: &str) -> String {
    format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\n")
}

fn deployment(name: &str, namespace: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  labels: {{app: {name}}}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n"
    )
}

// ---------------------------------------------------------------------------------------------------------
// LimitRanger

const LIMITS: &str = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - type: Container\n    max: {cpu: 500m, memory: 1Gi}\n    min: {memory: 32Mi}\n    default: {cpu: 200m, memory: 128Mi}\n    defaultRequest: {cpu: 100m}\n";

#[test]
fn limit_ranger_fills_in_default_requests_and_limits_and_says_so_in_an_annotation() {
    let mut c = Cluster::new_default(1);
    assert_eq!(apply(&mut c, LIMITS), ok("limitrange/limits created"));
    assert_eq!(apply(&mut c, &pod("web", "default", &[("app", "")])), ok("pod/web created"));
    let (yaml, _) = kubectl(&mut c, "get pod web -o yaml");
    assert!(
        // go-yaml folds the long single-quoted value at 80 columns, as kubectl prints it.
        yaml.contains("kubernetes.io/limit-ranger: 'LimitRanger plugin set: cpu, memory request for container\n      app; cpu, memory limit for container app'"),
        "{yaml}"
    );
    assert!(yaml.contains("    resources:\n      limits:\n        cpu: 200m\n        memory: 128Mi\n      requests:\n        cpu: 100m\n        memory: 128Mi\n"), "{yaml}");
}

#[test]
fn limit_ranger_refuses_a_container_above_the_maximum() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, LIMITS);
    let big = pod("big", "default", &[("app", "    resources:\n      limits: {cpu: '1'}\n")]);
    assert_eq!(
        apply(&mut c, &big),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1"#
        )
    );
    assert_eq!(kubectl(&mut c, "get pods").0, "No resources found in default namespace.\n");
}

#[test]
fn limit_ranger_lists_every_violated_bound_in_brackets() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, LIMITS);
    let bad = pod(
        "bad",
        "default",
        &[("app", "    resources:\n      requests: {memory: 16Mi}\n      limits: {cpu: 2, memory: 2Gi}\n")],
    );
    assert_eq!(
        create(&mut c, &bad),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "bad" is forbidden: [minimum memory usage per Container is 32Mi, but request is 16Mi, maximum cpu usage per Container is 500m, but limit is 2, maximum memory usage per Container is 1Gi, but limit is 2Gi]"#
        )
    );
}

// ---------------------------------------------------------------------------------------------------------
// ResourceQuota

#[test]
fn resource_quota_refuses_the_pod_beyond_the_pod_count() {
    let mut c = Cluster::new_default(1);
    let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods-quota}\nspec:\n  hard: {pods: '2'}\n";
    assert_eq!(apply(&mut c, quota), ok("resourcequota/pods-quota created"));
    assert_eq!(apply(&mut c, &pod("p1", "default", &[("app", "")])), ok("pod/p1 created"));
    assert_eq!(apply(&mut c, &pod("p2", "default", &[("app", "")])), ok("pod/p2 created"));
    assert_eq!(
        apply(&mut c, &pod("p3", "default", &[("app", "")])),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "p3" is forbidden: exceeded quota: pods-quota, requested: pods=1, used: pods=2, limited: pods=2"#
        )
    );
}

#[test]
fn resource_quota_on_cpu_and_memory_requires_every_container_to_state_them() {
    let mut c = Cluster::new_default(1);
    let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute}\nspec:\n  hard: {limits.cpu: '2', requests.memory: 1Gi}\n";
    apply(&mut c, quota);
    let p = pod("web", "default", &[("app", "    resources:\n      requests: {memory: 64Mi}\n"), ("sidecar", "")]);
    assert_eq!(
        create(&mut c, &p),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "web" is forbidden: failed quota: compute: must specify limits.cpu for: app,sidecar; requests.memory for: sidecar"#
        )
    );
}

#[test]
fn resource_quota_adds_up_requests_and_reports_the_exceeded_resources_sorted() {
    let mut c = Cluster::new_default(1);
    let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute}\nspec:\n  hard: {requests.cpu: '1', requests.memory: 1Gi, pods: '10'}\n";
    apply(&mut c, quota);
    let sized =
        |name: &str| pod(name, "default", &[("app", "    resources:\n      requests: {cpu: 400m, memory: 384Mi}\n")]);
    assert_eq!(apply(&mut c, &sized("a")), ok("pod/a created"));
    assert_eq!(apply(&mut c, &sized("b")), ok("pod/b created"));
    assert_eq!(
        apply(&mut c, &sized("c")),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=400m,requests.memory=384Mi, used: requests.cpu=800m,requests.memory=768Mi, limited: requests.cpu=1,requests.memory=1Gi"#
        )
    );
}

#[test]
fn resource_quota_counts_services_configmaps_and_any_resource_by_count() {
    let mut c = Cluster::new_default(1);
    let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: objects}\nspec:\n  hard: {services.nodeports: '1', configmaps: '1', count/deployments.apps: '1'}\n";
    apply(&mut c, quota);
    let svc = |name: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\nspec:\n  type: NodePort\n  selector: {{app: web}}\n  ports:\n  - port: 80\n")
    };
    assert_eq!(apply(&mut c, &svc("one")), ok("service/one created"));
    assert_eq!(
        apply(&mut c, &svc("two")),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": services "two" is forbidden: exceeded quota: objects, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1"#
        )
    );
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{k: v}}\n");
    assert_eq!(apply(&mut c, &cm("a")), ok("configmap/a created"));
    assert_eq!(
        apply(&mut c, &cm("b")),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=1, limited: configmaps=1"#
        )
    );
    assert_eq!(apply(&mut c, &deployment("a", "default", 1)), ok("deployment.apps/a created"));
    assert_eq!(
        apply(&mut c, &deployment("b", "default", 1)),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": deployments.apps "b" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1"#
        )
    );
}

#[test]
fn resource_quota_runs_after_validation_so_an_invalid_pod_is_not_charged() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: none}\nspec:\n  hard: {pods: '0'}\n");
    let invalid = "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers:\n  - name: app\n";
    assert_eq!(
        apply(&mut c, invalid),
        refused(r#"The Pod "bad" is invalid: spec.containers[0].image: Required value"#)
    );
    assert_eq!(
        apply(&mut c, &pod("good", "default", &[("app", "")])),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "good" is forbidden: exceeded quota: none, requested: pods=1, used: pods=0, limited: pods=0"#
        )
    );
}

// ---------------------------------------------------------------------------------------------------------
// PodSecurity

const RESTRICTED_OK: &str = "    securityContext:\n      allowPrivilegeEscalation: false\n      capabilities: {drop: [ALL]}\n      runAsNonRoot: true\n      seccompProfile: {type: RuntimeDefault}\n";

#[test]
fn pod_security_enforce_restricted_refuses_a_plain_pod_with_every_reason() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        apply(&mut c, &namespace("team", "pod-security.kubernetes.io/enforce: restricted")),
        ok("namespace/team created")
    );
    assert_eq!(
        apply(&mut c, &pod("x", "team", &[("c", "")])),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#
        )
    );
    assert_eq!(apply(&mut c, &pod("fine", "team", &[("c", RESTRICTED_OK)])), ok("pod/fine created"));
}

#[test]
fn pod_security_enforce_baseline_refuses_host_namespaces_host_paths_and_privileged_containers() {
    let mut c = Cluster::new_default(1);
    apply(
        &mut c,
        &namespace(
            "infra",
            "pod-security.kubernetes.io/enforce: baseline, pod-security.kubernetes.io/enforce-version: v1.34",
        ),
    );
    let p = "apiVersion: v1\nkind: Pod\nmetadata: {name: agent, namespace: infra}\nspec:\n  hostNetwork: true\n  volumes:\n  - name: data\n    hostPath: {path: /var/lib/data}\n  containers:\n  - name: a\n    image: busybox:1.36\n    securityContext: {privileged: true, capabilities: {add: [NET_ADMIN, CHOWN]}}\n    ports:\n    - containerPort: 8080\n      hostPort: 8080\n  - name: b\n    image: busybox:1.36\n    securityContext: {privileged: true}\n";
    assert_eq!(
        create(&mut c, p),
        refused(
            r#"Error from server (Forbidden): error when creating "STDIN": pods "agent" is forbidden: violates PodSecurity "baseline:v1.34": non-default capabilities (container "a" must not include "NET_ADMIN" in securityContext.capabilities.add), host namespaces (hostNetwork=true), hostPath volumes (volume "data"), hostPort (container "a" uses hostPort 8080), privileged (containers "a", "b" must not set securityContext.privileged=true)"#
        )
    );
}

#[test]
fn pod_security_warn_lets_the_pod_in_after_a_warning_line() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("dev", "pod-security.kubernetes.io/warn: restricted"));
    assert_eq!(
        apply(&mut c, &pod("x", "dev", &[("c", "    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n")])),
        ok("Warning: would violate PodSecurity \"restricted:latest\": runAsNonRoot != true (pod or container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")\npod/x created")
    );
}

#[test]
fn pod_security_warns_about_a_deployment_template_in_an_enforcing_namespace() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("shop", "pod-security.kubernetes.io/enforce: baseline"));
    let d = deployment("web", "shop", 1).replace(
        "        image: nginx:1.27\n",
        "        image: nginx:1.27\n        securityContext: {privileged: true}\n",
    );
    assert_eq!(
        apply(&mut c, &d),
        ok("Warning: would violate PodSecurity \"baseline:latest\": privileged (container \"app\" must not set securityContext.privileged=true)\ndeployment.apps/web created")
    );
}

#[test]
fn the_same_warning_prints_once_per_kubectl_command() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("shop", "pod-security.kubernetes.io/warn: baseline"));
    let privileged = |name: &str| {
        deployment(name, "shop", 1).replace(
            "        image: nginx:1.27\n",
            "        image: nginx:1.27\n        securityContext: {privileged: true}\n",
        )
    };
    let both = format!("{}---\n{}", privileged("web"), privileged("api"));
    assert_eq!(
        apply(&mut c, &both),
        ok("Warning: would violate PodSecurity \"baseline:latest\": privileged (container \"app\" must not set securityContext.privileged=true)\ndeployment.apps/web created\ndeployment.apps/api created")
    );
}

#[test]
fn pod_security_checks_a_pod_update_that_changes_an_image() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("team", ""));
    assert_eq!(apply(&mut c, &pod("x", "team", &[("c", "")])), ok("pod/x created"));
    apply(&mut c, &namespace("team", "pod-security.kubernetes.io/enforce: baseline"));
    let privileged_now = pod("x", "team", &[("c", "")]).replace("nginx:1.27", "nginx:1.28");
    assert_eq!(apply(&mut c, &privileged_now), ok("pod/x configured"), "baseline has nothing against this pod");
    apply(&mut c, &namespace("team", "pod-security.kubernetes.io/enforce: restricted"));
    let again = pod("x", "team", &[("c", "")]).replace("nginx:1.27", "nginx:1.29");
    let (out, code) = apply(&mut c, &again);
    assert_eq!(code, Some(1));
    assert!(out.starts_with("Error from server (Forbidden): error when applying patch:"), "{out}");
    assert!(
        out.contains(
            "pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false"
        ),
        "{out}"
    );
}

#[test]
fn pod_security_refuses_a_namespace_with_an_unknown_level() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        apply(&mut c, &namespace("odd", "pod-security.kubernetes.io/enforce: strict, pod-security.kubernetes.io/warn-version: v2")),
        refused("The Namespace \"odd\" is invalid: \n* metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"strict\": must be one of privileged, baseline, restricted\n* metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"v2\": must be \"latest\" or \"v1.x\"")
    );
}

#[test]
fn pod_security_tightening_a_namespace_warns_about_the_pods_already_there() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("team", ""));
    apply(&mut c, &pod("b", "team", &[("c", "")]));
    apply(&mut c, &pod("a", "team", &[("c", "")]));
    apply(&mut c, &pod("ok", "team", &[("c", RESTRICTED_OK)]));
    assert_eq!(
        apply(&mut c, &namespace("team", "pod-security.kubernetes.io/enforce: restricted")),
        ok("Warning: existing pods in namespace \"team\" violate the new PodSecurity enforce level \"restricted:latest\"\nWarning: a (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\nnamespace/team configured")
    );
}

// ---------------------------------------------------------------------------------------------------------
// ValidatingAdmissionPolicy

fn policy(name: &str, validation: &str, extra_spec: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: {name}\nspec:\n{extra_spec}  matchConstraints:\n    resourceRules:\n    - apiGroups: [apps]\n      apiVersions: [v1]\n      operations: [CREATE, UPDATE]\n      resources: [deployments]\n  validations:\n{validation}"
    )
}

fn binding(name: &str, policy: &str, actions: &str, extra_spec: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: {name}\nspec:\n  policyName: {policy}\n  validationActions: [{actions}]\n{extra_spec}"
    )
}

const MAX_REPLICAS: &str = "  - expression: object.spec.replicas <= 5\n    message: replicas must be at most 5\n";

#[test]
fn a_validating_admission_policy_denies_with_its_message_as_an_invalid_error() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        apply(&mut c, &policy("max-replicas", MAX_REPLICAS, "")),
        ok("validatingadmissionpolicy.admissionregistration.k8s.io/max-replicas created")
    );
    assert_eq!(
        apply(&mut c, &binding("max-replicas-binding", "max-replicas", "Deny", "")),
        ok("validatingadmissionpolicybinding.admissionregistration.k8s.io/max-replicas-binding created")
    );
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 6)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be at most 5")
    );
    assert_eq!(apply(&mut c, &deployment("web", "default", 3)), ok("deployment.apps/web created"));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 9)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be at most 5")
    );
}

#[test]
fn a_policy_without_a_message_reports_the_failed_expression_and_a_reason_changes_the_status() {
    let mut c = Cluster::new_default(1);
    let v = "  - expression: \"object.metadata.name.startsWith('app-')\"\n    reason: Forbidden\n";
    apply(&mut c, &policy("prefix", v, ""));
    apply(&mut c, &binding("prefix", "prefix", "Deny", ""));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 1)),
        refused("Error from server (Forbidden): error when creating \"STDIN\": deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'prefix' with binding 'prefix' denied request: failed expression: object.metadata.name.startsWith('app-')")
    );
}

#[test]
fn a_message_expression_builds_the_message_from_the_request() {
    let mut c = Cluster::new_default(1);
    let v = "  - expression: object.spec.replicas <= 5\n    messageExpression: \"'replicas ' + string(object.spec.replicas) + ' is over 5 for ' + request.userInfo.username\"\n";
    apply(&mut c, &policy("max", v, ""));
    apply(&mut c, &binding("max", "max", "Deny", ""));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 8)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'max' with binding 'max' denied request: replicas 8 is over 5 for kubernetes-admin")
    );
}

#[test]
fn the_warn_action_prints_a_warning_and_lets_the_request_through() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &policy("max-replicas", MAX_REPLICAS, ""));
    apply(&mut c, &binding("soft", "max-replicas", "Warn, Audit", ""));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 6)),
        ok("Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'soft': replicas must be at most 5\ndeployment.apps/web created")
    );
}

#[test]
fn an_expression_error_refuses_under_fail_and_is_ignored_under_ignore() {
    let mut c = Cluster::new_default(1);
    let v = "  - expression: object.spec.paused == false\n";
    apply(&mut c, &policy("paused", v, ""));
    apply(&mut c, &binding("paused", "paused", "Deny", ""));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 1)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'paused' with binding 'paused' denied request: expression 'object.spec.paused == false' resulted in error: no such key: paused")
    );
    apply(&mut c, &policy("paused", v, "  failurePolicy: Ignore\n"));
    assert_eq!(apply(&mut c, &deployment("web", "default", 1)), ok("deployment.apps/web created"));
}

#[test]
fn selectors_and_bindings_decide_which_requests_a_policy_sees() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &namespace("prod", "env: prod"));
    apply(&mut c, &namespace("test", "env: test"));
    apply(&mut c, &policy("max-replicas", MAX_REPLICAS, ""));
    let prod_only = "  matchResources:\n    namespaceSelector:\n      matchLabels: {env: prod}\n";
    apply(&mut c, &binding("prod", "max-replicas", "Deny", prod_only));
    assert_eq!(apply(&mut c, &deployment("web", "test", 9)), ok("deployment.apps/web created"));
    assert_eq!(
        apply(&mut c, &deployment("web", "prod", 9)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'prod' denied request: replicas must be at most 5")
    );
    let unbound = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: no-pods}\nspec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n  validations:\n  - expression: 'false'\n";
    apply(&mut c, unbound);
    assert_eq!(
        apply(&mut c, &pod("p", "test", &[("app", "")])),
        ok("pod/p created"),
        "a policy without a binding does nothing"
    );
}

#[test]
fn parameters_come_from_the_object_the_binding_names() {
    let mut c = Cluster::new_default(1);
    let with_params = "  paramKind: {apiVersion: v1, kind: ConfigMap}\n";
    let v = "  - expression: object.spec.replicas <= int(params.data.max)\n    messageExpression: \"'at most ' + params.data.max + ' replicas'\"\n";
    apply(&mut c, &policy("max-replicas", v, with_params));
    let param_ref = "  paramRef:\n    name: limits\n    namespace: default\n    parameterNotFoundAction: Deny\n";
    apply(&mut c, &binding("max-replicas", "max-replicas", "Deny", param_ref));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 2)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")
    );
    apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits}\ndata: {max: '4'}\n");
    assert_eq!(apply(&mut c, &deployment("web", "default", 2)), ok("deployment.apps/web created"));
    assert_eq!(
        apply(&mut c, &deployment("api", "default", 7)),
        refused("The deployments \"api\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 4 replicas")
    );
}

#[test]
fn a_policy_whose_expression_does_not_compile_is_refused_when_it_is_written() {
    let mut c = Cluster::new_default(1);
    let v = "  - expression: objekt.spec.replicas <= 5\n";
    assert_eq!(
        apply(&mut c, &policy("typo", v, "")),
        refused("The ValidatingAdmissionPolicy \"typo\" is invalid: spec.validations[0].expression: Invalid value: \"objekt.spec.replicas <= 5\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'objekt' (in container '')\n | objekt.spec.replicas <= 5\n | ^")
    );
    let no_actions = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec:\n  policyName: p\n";
    assert_eq!(
        apply(&mut c, no_actions),
        refused("The ValidatingAdmissionPolicyBinding \"b\" is invalid: spec.validationActions: Required value: at least one validation action is required")
    );
}

#[test]
fn a_hostile_expression_is_refused_or_evaluated_without_harm() {
    let mut c = Cluster::new_default(1);
    let deep = format!("  - expression: \"{}true{}\"\n", "(".repeat(500), ")".repeat(500));
    let (out, code) = apply(&mut c, &policy("deep", &deep, ""));
    assert_eq!(code, Some(1));
    assert!(out.contains("compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded"), "{out}");
    let costly = "  - expression: \"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0))))))\"\n";
    apply(&mut c, &policy("costly", costly, ""));
    apply(&mut c, &binding("costly", "costly", "Deny", ""));
    assert_eq!(
        apply(&mut c, &deployment("web", "default", 1)),
        refused("The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: expression '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0))))))' resulted in error: operation cancelled: actual cost limit exceeded")
    );
}

#[test]
fn a_policy_can_guard_deletes_through_the_old_object() {
    let mut c = Cluster::new_default(1);
    let keep = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: keep}\nspec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [''], apiVersions: [v1], operations: [DELETE], resources: [configmaps]}\n  validations:\n  - expression: \"object == null && !has(oldObject.metadata.labels) || oldObject.metadata.labels['protected'] != 'true'\"\n    messageExpression: \"'configmap ' + oldObject.metadata.name + ' is protected'\"\n";
    apply(&mut c, keep);
    apply(&mut c, &binding("keep", "keep", "Deny", ""));
    apply(
        &mut c,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, labels: {protected: 'true'}}\ndata: {k: v}\n",
    );
    apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: scratch}\ndata: {k: v}\n");
    assert_eq!(
        kubectl(&mut c, "delete configmap settings"),
        refused("The configmaps \"settings\" is invalid: : ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: configmap settings is protected")
    );
    assert_eq!(kubectl(&mut c, "delete configmap scratch"), ok("configmap \"scratch\" deleted from default namespace"));
}

// ---------------------------------------------------------------------------------------------------------
// Webhooks

#[test]
fn webhook_configurations_are_stored_but_never_called() {
    let mut c = Cluster::new_default(1);
    let hook = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: deny-all}\nwebhooks:\n- name: deny.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  failurePolicy: Fail\n  clientConfig:\n    url: https://deny.example.com/validate\n  rules:\n  - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n";
    assert_eq!(apply(&mut c, hook), ok("validatingwebhookconfiguration.admissionregistration.k8s.io/deny-all created"));
    assert_eq!(apply(&mut c, &pod("p", "default", &[("app", "")])), ok("pod/p created"));
}
