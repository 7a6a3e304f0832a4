//! Scenario tests of create and update validation: manifests as users write them, decoded, defaulted as
//! the apiserver defaults them, then validated; every expectation is the exact `<field>: <message>` line
//! kubectl prints for the cause.

use super::*;
use crate::api::{cron, lookup_kind};
use crate::apiserver::defaults::apply_defaults;

fn object(yaml: &str) -> Object {
    let value: serde_json::Value = serde_yaml::from_str(yaml).expect("test manifest is YAML");
    let api_version = value["apiVersion"].as_str().unwrap_or("");
    let kind = value["kind"].as_str().unwrap_or("");
    let info = lookup_kind(api_version, kind).expect("known kind");
    let mut obj = Object::from_json_as(info.kind, value).expect("decodes");
    apply_defaults(&mut obj);
    obj
}

fn create(yaml: &str) -> Vec<String> {
    validate_create(&object(yaml)).iter().map(Cause::render).collect()
}

fn update(old: &str, new: &str) -> Vec<String> {
    let mut old = object(old);
    let mut new = object(new);
    old.meta_mut().resource_version = Some("10".into());
    new.meta_mut().resource_version = Some("10".into());
    validate_update(&old, &new).iter().map(Cause::render).collect()
}

const DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
"#;

fn deployment_with(patch: &str) -> String {
    let mut base: serde_json::Value = serde_yaml::from_str(DEPLOYMENT).unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(patch).unwrap();
    merge(&mut base, patch);
    serde_yaml::to_string(&base).unwrap()
}

/// A JSON merge patch (null deletes).
fn merge(target: &mut serde_json::Value, patch: serde_json::Value) {
    match (target, patch) {
        (serde_json::Value::Object(t), serde_json::Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(&k);
                } else {
                    merge(t.entry(k).or_insert(serde_json::Value::Null), v);
                }
            }
        }
        (t, p) => *t = p,
    }
}

const POD: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - name: app
    image: nginx
"#;

fn pod_with(patch: &str) -> String {
    let mut base: serde_json::Value = serde_yaml::from_str(POD).unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(patch).unwrap();
    merge(&mut base, patch);
    serde_yaml::to_string(&base).unwrap()
}

#[test]
fn a_well_formed_deployment_is_accepted() {
    assert_eq!(create(DEPLOYMENT), Vec::<String>::new());
}

#[test]
fn a_deployment_without_selector_needs_one_and_its_labels_do_not_match_nothing() {
    assert_eq!(
        create(&deployment_with("spec: {selector: null}")),
        vec![
            "spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
        ]
    );
}

#[test]
fn a_selector_that_misses_the_template_labels_is_rejected_with_the_labels_as_json() {
    assert_eq!(
        create(&deployment_with("spec: {selector: {matchLabels: {app: api}}}")),
        vec!["spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"]
    );
}

#[test]
fn a_deployment_template_must_restart_always() {
    assert_eq!(
        create(&deployment_with("spec: {template: {spec: {restartPolicy: Never}}}")),
        vec!["spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""]
    );
}

#[test]
fn negative_replicas_are_rejected() {
    assert_eq!(
        create(&deployment_with("spec: {replicas: -1}")),
        vec!["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]
    );
}

#[test]
fn max_unavailable_may_not_be_zero_when_max_surge_is_zero() {
    assert_eq!(
        create(&deployment_with("spec: {strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}}")),
        vec!["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"]
    );
    assert_eq!(
        create(&deployment_with("spec: {strategy: {rollingUpdate: {maxSurge: '0%', maxUnavailable: 120%}}}")),
        vec!["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"120%\": must not be greater than 100%"]
    );
}

#[test]
fn an_unknown_strategy_type_lists_the_supported_ones() {
    assert_eq!(
        create(&deployment_with("spec: {strategy: {type: BlueGreen}}")),
        vec!["spec.strategy: Unsupported value: {\"Type\":\"BlueGreen\",\"RollingUpdate\":null}: supported values: \"Recreate\", \"RollingUpdate\""]
    );
}

#[test]
fn a_container_without_image_is_reported_at_its_template_path() {
    assert_eq!(
        create(&deployment_with("spec: {template: {spec: {containers: [{name: nginx}]}}}")),
        vec!["spec.template.spec.containers[0].image: Required value"]
    );
}

#[test]
fn progress_deadline_must_exceed_min_ready_seconds() {
    assert_eq!(
        create(&deployment_with("spec: {minReadySeconds: 700, progressDeadlineSeconds: 600}")),
        vec!["spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"]
    );
}

#[test]
fn bad_object_labels_and_annotations_are_reported_on_metadata() {
    assert_eq!(
        create(&deployment_with(
            "metadata: {labels: {'-bad': x}, annotations: {'a/b/c': x}}"
        )),
        vec![
            "metadata.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "metadata.annotations: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ]
    );
}

#[test]
fn a_deployment_selector_is_immutable() {
    let changed =
        deployment_with("spec: {selector: {matchLabels: {app: web2}}, template: {metadata: {labels: {app: web2}}}}");
    assert_eq!(
        update(DEPLOYMENT, &changed),
        vec!["spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web2\"}}: field is immutable"]
    );
}

#[test]
fn scaling_and_new_images_are_valid_deployment_updates() {
    let changed =
        deployment_with("spec: {replicas: 5, template: {spec: {containers: [{name: nginx, image: 'nginx:1.28'}]}}}");
    assert_eq!(update(DEPLOYMENT, &changed), Vec::<String>::new());
}

#[test]
fn a_renamed_object_is_rejected_on_update() {
    assert_eq!(
        update(DEPLOYMENT, &deployment_with("metadata: {name: web2}")),
        vec!["metadata.name: Invalid value: \"web2\": field is immutable"]
    );
}

#[test]
fn a_pod_needs_containers() {
    assert_eq!(create(&pod_with("spec: {containers: []}")), vec!["spec.containers: Required value"]);
}

#[test]
fn a_pod_without_name_or_generate_name_is_rejected() {
    assert_eq!(
        create(&pod_with("metadata: {name: null}")),
        vec!["metadata.name: Required value: name or generateName is required"]
    );
}

#[test]
fn container_names_must_be_unique_labels() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a}, {name: app, image: b}, {name: App, image: c}]}"
        )),
        vec![
            "spec.containers[1].name: Duplicate value: \"app\"",
            "spec.containers[2].name: Invalid value: \"App\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ]
    );
}

#[test]
fn container_ports_must_be_in_range_with_a_known_protocol() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, ports: [{containerPort: 70000, protocol: FOO}]}]}"
        )),
        vec![
            "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
            "spec.containers[0].ports[0].protocol: Unsupported value: \"FOO\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
        ]
    );
}

#[test]
fn an_unknown_restart_policy_lists_the_three_policies() {
    assert_eq!(
        create(&pod_with("spec: {restartPolicy: Sometimes}")),
        vec!["spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""]
    );
}

#[test]
fn requests_above_limits_name_the_limit() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, resources: {requests: {cpu: '2'}, limits: {cpu: '1'}}}]}"
        )),
        vec![
            "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"
        ]
    );
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}]}"
        )),
        vec!["spec.containers[0].resources.requests: Invalid value: \"2Gi\": must be less than or equal to memory limit of 1Gi"]
    );
}

#[test]
fn negative_quantities_and_unknown_resources_are_rejected() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, resources: {limits: {cpu: '-1', gpu: '1'}}}]}"
        )),
        vec![
            "spec.containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
            "spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
            "spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
            "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
            "spec.containers[0].resources.requests[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
            "spec.containers[0].resources.requests[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
        ]
    );
}

#[test]
fn an_unparsable_quantity_is_a_decode_error() {
    let obj = object(&pod_with("spec: {containers: [{name: app, image: a, resources: {limits: {cpu: abc}}}]}"));
    assert_eq!(
        decode_error(&obj).as_deref(),
        Some("Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    );
    assert_eq!(decode_error(&object(POD)), None);
    assert!(validate_create(&obj).iter().any(|c| c.render()
        == "spec.containers[0].resources.limits[cpu]: Invalid value: \"abc\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
}

#[test]
fn a_probe_needs_exactly_one_handler() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, readinessProbe: {periodSeconds: 5}, livenessProbe: {exec: {command: [ls]}, tcpSocket: {port: 80}}}]}"
        )),
        vec![
            "spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
            "spec.containers[0].readinessProbe: Required value: must specify a handler type",
        ]
    );
}

#[test]
fn liveness_probes_must_succeed_once() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, livenessProbe: {httpGet: {port: 8080}, successThreshold: 2}}]}"
        )),
        vec!["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"]
    );
}

#[test]
fn volume_mounts_must_name_a_declared_volume() {
    assert_eq!(
        create(&pod_with(
            "spec: {volumes: [{name: data}], containers: [{name: app, image: a, volumeMounts: [{name: cache, mountPath: /c}]}]}"
        )),
        vec!["spec.containers[0].volumeMounts[0].name: Not found: \"cache\""]
    );
}

#[test]
fn env_var_names_and_sources_are_checked() {
    assert_eq!(
        create(&pod_with(
            "spec: {containers: [{name: app, image: a, env: [{name: 'A=B'}, {name: X, valueFrom: {fieldRef: {fieldPath: spec.foo}}}]}]}"
        )),
        vec![
            "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
            "spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.foo\": error converting fieldPath: field label not supported: spec.foo",
        ]
    );
}

#[test]
fn an_uppercase_pod_name_is_not_a_subdomain() {
    assert_eq!(
        create(&pod_with("metadata: {name: Web}")),
        vec!["metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
    );
}

#[test]
fn a_pod_may_only_change_images_on_update() {
    let tagged = pod_with("spec: {containers: [{name: app, image: 'nginx:1'}]}");
    assert_eq!(update(&tagged, &pod_with("spec: {containers: [{name: app, image: 'nginx:2'}]}")), Vec::<String>::new());
    let errs = update(&tagged, &pod_with("spec: {containers: [{name: app, image: 'nginx:1', command: [sh]}]}"));
    assert_eq!(errs.len(), 1);
    assert!(errs[0].starts_with("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"), "{}", errs[0]);
    assert!(errs[0].contains("containers[0].command[0]"));
}

#[test]
fn replacing_a_pod_with_a_manifest_that_defaults_differently_is_forbidden() {
    // `nginx` defaults to imagePullPolicy Always, `nginx:2` to IfNotPresent: a replace changes the policy.
    let errs = update(POD, &pod_with("spec: {containers: [{name: app, image: 'nginx:2'}]}"));
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains(
        "- \tcontainers[0].imagePullPolicy: \"Always\"\n+ \tcontainers[0].imagePullPolicy: \"IfNotPresent\""
    ));
}

#[test]
fn a_pod_cannot_gain_or_lose_containers() {
    assert_eq!(
        update(POD, &pod_with("spec: {containers: [{name: app, image: a}, {name: b, image: b}]}")),
        vec!["spec.containers: Forbidden: pod updates may not add or remove containers"]
    );
}

const SERVICE: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
"#;

fn service_with(patch: &str) -> String {
    let mut base: serde_json::Value = serde_yaml::from_str(SERVICE).unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(patch).unwrap();
    merge(&mut base, patch);
    serde_yaml::to_string(&base).unwrap()
}

#[test]
fn a_plain_cluster_ip_service_is_accepted() {
    assert_eq!(create(SERVICE), Vec::<String>::new());
}

#[test]
fn a_service_needs_ports_unless_headless() {
    assert_eq!(create(&service_with("spec: {ports: null}")), vec!["spec.ports: Required value"]);
    assert_eq!(create(&service_with("spec: {ports: null, clusterIP: None}")), Vec::<String>::new());
}

#[test]
fn service_names_are_dns_1035_labels() {
    assert_eq!(
        create(&service_with("metadata: {name: 1web}")),
        vec!["metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
    );
}

#[test]
fn a_node_port_outside_the_range_is_refused_by_the_allocator_alone() {
    assert_eq!(
        create(&service_with(
            "{metadata: {name: Bad}, spec: {type: NodePort, ports: [{port: 80, nodePort: 80}]}}"
        )),
        vec!["spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"]
    );
    assert_eq!(
        create(&service_with("spec: {type: NodePort, ports: [{port: 80, nodePort: 30080}]}")),
        Vec::<String>::new()
    );
}

#[test]
fn cluster_ip_services_may_not_name_node_ports() {
    assert_eq!(
        create(&service_with("spec: {ports: [{port: 80, nodePort: 30080}]}")),
        vec!["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]
    );
}

#[test]
fn service_ports_need_names_when_there_are_several_and_must_be_unique() {
    assert_eq!(
        create(&service_with(
            "spec: {ports: [{port: 80, name: http}, {port: 80, targetPort: 0}]}"
        )),
        vec![
            "spec.ports[1].name: Required value",
            "spec.ports[1]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\",\"AppProtocol\":null,\"Port\":80,\"TargetPort\":0,\"NodePort\":0}",
        ]
    );
}

#[test]
fn an_unknown_service_type_lists_the_sorted_types() {
    assert_eq!(
        create(&service_with("spec: {type: Internal}")),
        vec!["spec.type: Unsupported value: \"Internal\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""]
    );
}

#[test]
fn a_cluster_ip_cannot_change_once_set() {
    let old = service_with("spec: {clusterIP: 10.96.0.10, clusterIPs: [10.96.0.10]}");
    let new = service_with("spec: {clusterIP: 10.96.0.20}");
    assert_eq!(
        update(&old, &new),
        vec!["spec.clusterIPs[0]: Invalid value: [\"10.96.0.20\"]: may not change once set"]
    );
    let unchanged = service_with("spec: {ports: [{port: 8080}]}");
    assert_eq!(update(&old, &unchanged), Vec::<String>::new());
}

#[test]
fn a_malformed_cluster_ip_is_rejected() {
    assert_eq!(
        create(&service_with("spec: {clusterIP: 10.96.0.300}")),
        vec!["spec.clusterIPs[0]: Invalid value: \"10.96.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    );
}

const JOB: &str = r#"
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default, uid: 1d2e3f}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: perl}]
"#;

fn job(patch: &str) -> Object {
    let mut base: serde_json::Value = serde_yaml::from_str(JOB).unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(patch).unwrap();
    merge(&mut base, patch);
    let mut obj = object(&serde_yaml::to_string(&base).unwrap());
    if let Object::Job(j) = &mut obj {
        batch::generate_selector(j);
    }
    obj
}

fn job_errors(patch: &str) -> Vec<String> {
    validate_create(&job(patch)).iter().map(Cause::render).collect()
}

#[test]
fn a_job_with_a_generated_selector_is_accepted() {
    assert_eq!(job_errors("{}"), Vec::<String>::new());
}

#[test]
fn a_job_template_may_not_restart_always() {
    assert_eq!(
        job_errors("spec: {template: {spec: {restartPolicy: Always}}}"),
        vec!["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
    );
    assert_eq!(
        job_errors("spec: {template: {spec: {restartPolicy: null}}}"),
        vec!["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
    );
}

#[test]
fn job_counts_must_not_be_negative() {
    assert_eq!(
        job_errors("spec: {parallelism: -1, completions: -2, backoffLimit: -3}"),
        vec![
            "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
            "spec.completions: Invalid value: -2: must be greater than or equal to 0",
            "spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
        ]
    );
}

#[test]
fn a_job_without_generated_selector_misses_it() {
    let obj = object(JOB);
    let errs: Vec<String> = validate_create(&obj).iter().map(Cause::render).collect();
    assert_eq!(
        errs,
        vec![
            "spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`",
        ]
    );
}

#[test]
fn a_job_template_and_selector_are_immutable() {
    let mut old = job("{}");
    let mut new = job("spec: {template: {spec: {containers: [{name: pi, image: perl2}]}}}");
    old.meta_mut().resource_version = Some("3".into());
    new.meta_mut().resource_version = Some("3".into());
    let errs: Vec<String> = validate_update(&old, &new).iter().map(Cause::render).collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("spec.template: Invalid value: {"));
    assert!(errs[0].ends_with("}: field is immutable"));
}

const CRON_JOB: &str = r#"
apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: default}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: r, image: busybox}]
"#;

fn cron_with(patch: &str) -> String {
    let mut base: serde_json::Value = serde_yaml::from_str(CRON_JOB).unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(patch).unwrap();
    merge(&mut base, patch);
    serde_yaml::to_string(&base).unwrap()
}

#[test]
fn a_cron_job_with_a_valid_schedule_is_accepted() {
    assert_eq!(create(CRON_JOB), Vec::<String>::new());
    assert_eq!(create(&cron_with("spec: {schedule: '@hourly'}")), Vec::<String>::new());
}

#[test]
fn a_cron_job_schedule_is_required_and_parsed() {
    assert_eq!(create(&cron_with("spec: {schedule: ''}")), vec!["spec.schedule: Required value"]);
    assert_eq!(
        create(&cron_with("spec: {schedule: '61 * * * *'}")),
        vec!["spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"]
    );
    assert_eq!(
        create(&cron_with("spec: {schedule: 'every day'}")),
        vec!["spec.schedule: Invalid value: \"every day\": expected exactly 5 fields, found 2: [every day]"]
    );
}

#[test]
fn cron_job_names_leave_room_for_the_job_suffix() {
    let name = "a".repeat(53);
    assert_eq!(
        create(&cron_with(&format!("metadata: {{name: {name}}}"))),
        vec![format!("metadata.name: Invalid value: \"{name}\": must be no more than 52 characters")]
    );
}

#[test]
fn namespace_names_are_labels() {
    let ns = |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: '{name}'}}\n");
    assert_eq!(create(&ns("dev")), Vec::<String>::new());
    assert_eq!(create(&ns("dev.team")), vec!["metadata.name: Invalid value: \"dev.team\": must not contain dots"]);
    // The defaulted kubernetes.io/metadata.name label fails too, as it does in Kubernetes.
    let long = "a".repeat(64);
    assert_eq!(
        create(&ns(&long)),
        vec![
            format!("metadata.name: Invalid value: \"{long}\": must be no more than 63 characters"),
            format!("metadata.labels: Invalid value: \"{long}\": must be no more than 63 characters"),
        ]
    );
}

#[test]
fn config_map_keys_and_immutability_are_enforced() {
    let cm = |data: &str, immutable: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: default}}\ndata: {data}\n{immutable}")
    };
    assert_eq!(
        create(&cm("{'a/b': x}", "")),
        vec!["data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]
    );
    assert_eq!(
        update(&cm("{a: x}", "immutable: true"), &cm("{a: y}", "immutable: true")),
        vec!["data: Forbidden: field is immutable when `immutable` is set"]
    );
    assert_eq!(
        update(&cm("{a: x}", "immutable: true"), &cm("{a: x}", "")),
        vec!["immutable: Forbidden: field is immutable when `immutable` is set"]
    );
    assert_eq!(update(&cm("{a: x}", ""), &cm("{a: y}", "")), Vec::<String>::new());
}

#[test]
fn secret_types_are_immutable_and_typed_secrets_need_their_keys() {
    let secret = |type_: &str, data: &str| {
        format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: default}}\ntype: {type_}\nstringData: {data}\n")
    };
    assert_eq!(create(&secret("kubernetes.io/tls", "{tls.crt: x}")), vec!["data[tls.key]: Required value"]);
    assert_eq!(
        update(&secret("Opaque", "{a: x}"), &secret("kubernetes.io/basic-auth", "{username: x}")),
        vec!["type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable"]
    );
}

#[test]
fn rbac_rules_need_verbs_and_resources() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: default}\nrules: [{apiGroups: [''], resources: [pods], verbs: []}, {verbs: [get]}]\n";
    assert_eq!(
        create(role),
        vec![
            "rules[0].verbs: Required value: verbs must contain at least one value",
            "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[1].resources: Required value: resource rules must supply at least one resource",
        ]
    );
}

#[test]
fn role_bindings_check_the_role_ref_and_keep_it() {
    let rb = |kind: &str, name: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: b, namespace: default}}\nroleRef: {{kind: {kind}, name: {name}}}\nsubjects: [{{kind: User, name: jane}}]\n")
    };
    assert_eq!(create(&rb("Role", "reader")), Vec::<String>::new());
    assert_eq!(
        create(&rb("Group", "reader")),
        vec!["roleRef.kind: Unsupported value: \"Group\": supported values: \"Role\", \"ClusterRole\""]
    );
    assert_eq!(
        update(&rb("Role", "reader"), &rb("Role", "writer")),
        vec!["roleRef: Invalid value: {\"APIGroup\":\"rbac.authorization.k8s.io\",\"Kind\":\"Role\",\"Name\":\"writer\"}: cannot change roleRef"]
    );
}

const STATEFUL_SET: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
"#;

#[test]
fn stateful_set_names_are_labels_and_most_of_the_spec_is_frozen() {
    assert_eq!(create(STATEFUL_SET), Vec::<String>::new());
    assert_eq!(
        create(&STATEFUL_SET.replace("name: db, namespace", "name: db.x, namespace")),
        vec!["metadata.name: Invalid value: \"db.x\": must not contain dots"]
    );
    assert_eq!(
        update(STATEFUL_SET, &STATEFUL_SET.replace("serviceName: db", "serviceName: db2")),
        vec!["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]
    );
    assert_eq!(
        update(STATEFUL_SET, &STATEFUL_SET.replace("serviceName: db", "serviceName: db\n  replicas: 4")),
        Vec::<String>::new()
    );
}

#[test]
fn a_daemon_set_rolls_with_either_surge_or_unavailability() {
    let ds = |strategy: &str| {
        format!("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent, namespace: kube-system}}\nspec:\n  selector: {{matchLabels: {{app: agent}}}}\n  updateStrategy: {strategy}\n  template:\n    metadata: {{labels: {{app: agent}}}}\n    spec: {{containers: [{{name: a, image: agent}}]}}\n")
    };
    assert_eq!(create(&ds("{}")), Vec::<String>::new());
    assert_eq!(
        create(&ds("{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}")),
        vec!["spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"]
    );
    assert_eq!(
        create(&ds("{rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}")),
        vec!["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]
    );
}

#[test]
fn replacing_an_object_by_another_kind_is_refused() {
    let old = object(POD);
    let new = object(SERVICE);
    assert_eq!(
        validate_update(&old, &new).iter().map(Cause::render).collect::<Vec<_>>(),
        vec!["kind: Invalid value: \"Service\": field is immutable"]
    );
}

#[test]
fn kinds_without_specific_rules_still_check_metadata() {
    let lease =
        "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: Node1, namespace: kube-node-lease}\n";
    assert_eq!(create(lease).len(), 1);
    assert!(create(lease)[0].starts_with("metadata.name: Invalid value: \"Node1\": a lowercase RFC 1123 subdomain"));
}

/// A small deterministic generator for the robustness tests (no wall clock, no OS randomness).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn string(&mut self, alphabet: &[u8], max_len: u64) -> String {
        let len = self.next() % (max_len + 1);
        (0..len).map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char).collect()
    }
}

#[test]
fn empty_objects_of_every_kind_are_defaulted_and_validated_without_panicking() {
    for info in crate::api::RESOURCES {
        for body in
            [serde_json::json!({}), serde_json::json!({"metadata": {"name": "x", "namespace": "default"}, "spec": {}})]
        {
            let Ok(mut obj) = Object::from_json_as(info.kind, body) else {
                continue;
            };
            let _ = validate_create(&obj);
            apply_defaults(&mut obj);
            let _ = validate_create(&obj);
            let _ = validate_update(&obj, &obj);
            let _ = decode_error(&obj);
        }
    }
}

#[test]
fn arbitrary_quantities_schedules_and_names_never_panic() {
    let mut rng = Lcg(42);
    for _ in 0..20_000 {
        let q = rng.string(b"0123456789.+-eEinumkKMGTP ", 12);
        if let Ok(parsed) = parse_quantity(&q) {
            let mut rounded = parsed.clone();
            rounded.round_up_to_milli();
            let _ = (parsed.to_string(), rounded.canonical(), parsed.milli());
        }
        let c = rng.string(b"0123456789*/-,? @abcdefghijklmnopqrstuvwxyzTZ=", 20);
        let _ = cron::parse_standard(&c);
        let n = rng.string(b"aZ09-._/%", 10) + if rng.next().is_multiple_of(3) { "é-" } else { "" };
        for rule in [NameRule::Subdomain, NameRule::Label, NameRule::Dns1035, NameRule::PathSegment] {
            let _ = names::check_name(rule, &n, true);
            let _ = names::check_name(rule, &n, false);
        }
        let _ = names::is_qualified_name(&n);
    }
}

#[test]
fn extreme_numbers_in_a_pod_never_panic() {
    let yaml = pod_with(
        "spec: {activeDeadlineSeconds: -9223372036854775808, terminationGracePeriodSeconds: -9223372036854775808, containers: [{name: app, image: a, ports: [{containerPort: -2147483648, hostPort: 2147483647}], livenessProbe: {initialDelaySeconds: -2147483648, successThreshold: 2147483647, exec: {command: [x]}}, lifecycle: {preStop: {sleep: {seconds: 9223372036854775807}}}, resources: {limits: {cpu: 1e30, memory: 99999999999999999999Ei}}}]}",
    );
    let obj = object(&yaml);
    let _ = validate_create(&obj);
    let _ = validate_update(&obj, &obj);
    let _ = decode_error(&obj);
}

#[test]
fn ephemeral_containers_are_added_never_removed_or_changed() {
    let base = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n";
    let with = |list: &str| object(&format!("{base}  ephemeralContainers: {list}\n"));
    let check = |new: &Object, old: &Object| -> Vec<String> {
        match (new, old) {
            (Object::Pod(n), Object::Pod(o)) => {
                pod::validate_ephemeral_containers_update(n, o).iter().map(Cause::render).collect()
            }
            _ => Vec::new(),
        }
    };
    let one = with("[{name: dbg, image: busybox}]");
    assert!(check(&one, &object(base)).is_empty());
    assert_eq!(
        check(&object(base), &one),
        ["spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"]
    );
    let changed = with("[{name: dbg, image: alpine}]");
    assert_eq!(
        check(&changed, &one),
        ["spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be changed\n"]
    );
    let bad = with("[{name: dbg, image: busybox}, {name: Bad_Name, image: busybox, ports: [{containerPort: 80}]}]");
    let causes = check(&bad, &one);
    assert!(causes[0].starts_with("spec.ephemeralContainers[1].name: Invalid value: \"Bad_Name\""), "{causes:?}");
    assert_eq!(causes[1], "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container");
    let restarting = with("[{name: dbg, image: busybox}, {name: again, image: busybox, restartPolicy: Always}]");
    assert_eq!(
        check(&restarting, &one),
        ["spec.ephemeralContainers[1].restartPolicy: Forbidden: cannot be set for an Ephemeral Container"]
    );
}
