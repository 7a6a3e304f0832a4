//! The object-making verbs: `kubectl create <generator>`, `kubectl run` and `kubectl expose`. Success and
//! error lines are kubectl v1.34's; `--dry-run=client -o yaml` texts are what kubectl prints for the same
//! command (checked against a real kubectl, whose v1.34 build no longer prints `creationTimestamp: null`);
//! created objects are read back from the apiserver.

use kubeglass::api::{Kind, Object};
use kubeglass::cluster::Cluster;
use serde_json::Value;

use crate::kubectl;

/// The stored object as JSON, read from the apiserver's cache.
pub fn stored(c: &Cluster, kind: Kind, ns: Option<&str>, name: &str) -> Option<Value> {
    c.apiserver().and_then(|a| a.cache().get(kind, ns, name)).map(|o| Object::to_json(&o))
}

fn ok(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(0)), "kubectl {line}");
}

fn fails(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(1)), "kubectl {line}");
}

#[test]
fn create_deployment_builds_kubectls_deployment_and_wraps_the_already_exists_error() {
    let mut c = Cluster::new_default(1);
    ok(&mut c, "create deployment web --image=nginx:1.27 --replicas=3 --port=80", "deployment.apps/web created\n");
    let d = stored(&c, Kind::Deployment, Some("default"), "web").expect("stored");
    assert_eq!(d["metadata"]["labels"]["app"], "web");
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["spec"]["selector"]["matchLabels"]["app"], "web");
    let container = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!((container["name"].as_str(), container["image"].as_str()), (Some("nginx"), Some("nginx:1.27")));
    assert_eq!(container["ports"][0]["containerPort"], 80);
    fails(
        &mut c,
        "create deployment web --image=nginx:1.27",
        "error: failed to create deployment: deployments.apps \"web\" already exists\n",
    );
}

#[test]
fn create_deployment_dry_run_prints_the_client_side_object_and_sends_nothing() {
    let mut c = Cluster::new_default(1);
    let expected = "apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: web
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  strategy: {}
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: nginx:1.27
        name: nginx
        ports:
        - containerPort: 80
        resources: {}
status: {}
";
    ok(&mut c, "create deployment web --image=nginx:1.27 --replicas=3 --port=80 --dry-run=client -o yaml", expected);
    ok(&mut c, "create deployment web --image=nginx --dry-run=client", "deployment.apps/web created (dry run)\n");
    ok(&mut c, "create deployment web --image=nginx --dry-run=client -o name", "deployment.apps/web\n");
    assert!(stored(&c, Kind::Deployment, Some("default"), "web").is_none());
}

#[test]
fn create_deployment_with_server_dry_run_is_checked_by_the_server_but_not_stored() {
    let mut c = Cluster::new_default(1);
    ok(
        &mut c,
        "create deployment web --image=nginx --dry-run=server",
        "deployment.apps/web created (server dry run)\n",
    );
    assert!(stored(&c, Kind::Deployment, Some("default"), "web").is_none());
    ok(&mut c, "create deployment web --image=nginx", "deployment.apps/web created\n");
    fails(
        &mut c,
        "create deployment web --image=nginx --dry-run=server",
        "error: failed to create deployment: deployments.apps \"web\" already exists\n",
    );
}

#[test]
fn create_deployment_refuses_missing_flags_names_and_bad_values_as_kubectl_does() {
    let mut c = Cluster::new_default(1);
    fails(&mut c, "create deployment web", "error: required flag(s) \"image\" not set\n");
    fails(
        &mut c,
        "create deployment --image=nginx",
        "error: exactly one NAME is required, got 0\nSee 'kubectl create deployment -h' for help and examples\n",
    );
    fails(
        &mut c,
        "create deployment a b --image=nginx",
        "error: exactly one NAME is required, got 2\nSee 'kubectl create deployment -h' for help and examples\n",
    );
    fails(
        &mut c,
        "create deployment web --image=nginx -r abc",
        "error: invalid argument \"abc\" for \"-r, --replicas\" flag: strconv.ParseInt: parsing \"abc\": invalid syntax\nSee 'kubectl create deployment --help' for usage.\n",
    );
    fails(
        &mut c,
        "create deployment web --image=nginx --dry-run=bogus",
        "error: Invalid dry-run value (bogus). Must be \"none\", \"server\", or \"client\".\n",
    );
    fails(
        &mut c,
        "create deployment web --image=nginx -o foo",
        "error: unable to match a printer suitable for the output format \"foo\", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml\n",
    );
    fails(
        &mut c,
        "create deployment web --image=a --image=b -- sleep 1",
        "error: cannot specify multiple --image options and command\n",
    );
}

#[test]
fn create_in_a_missing_namespace_is_refused_by_namespace_lifecycle_inside_the_wrapped_error() {
    let mut c = Cluster::new_default(1);
    fails(
        &mut c,
        "create deployment web --image=nginx -n nope",
        "error: failed to create deployment: namespaces \"nope\" not found\n",
    );
    ok(&mut c, "create namespace shop", "namespace/shop created\n");
    ok(&mut c, "create deployment web --image=nginx -n shop", "deployment.apps/web created\n");
    assert!(stored(&c, Kind::Deployment, Some("shop"), "web").is_some());
}

#[test]
fn create_namespace_reports_already_exists_without_a_wrapper() {
    let mut c = Cluster::new_default(1);
    ok(&mut c, "create namespace dev", "namespace/dev created\n");
    fails(&mut c, "create ns dev", "Error from server (AlreadyExists): namespaces \"dev\" already exists\n");
    ok(
        &mut c,
        "create namespace qa --dry-run=client -o yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: qa\nspec: {}\nstatus: {}\n",
    );
    let ns = stored(&c, Kind::Namespace, None, "dev").expect("stored");
    assert_eq!(ns["status"]["phase"], "Active");
}

#[test]
fn create_configmap_takes_literals_and_checks_their_keys() {
    let mut c = Cluster::new_default(1);
    ok(
        &mut c,
        "create configmap cfg --from-literal=a=1 --from-literal=b=two --dry-run=client -o yaml",
        "apiVersion: v1\ndata:\n  a: \"1\"\n  b: two\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
    );
    ok(&mut c, "create configmap cfg --from-literal=a=1 --from-literal=url=http://x?y=z", "configmap/cfg created\n");
    let cm = stored(&c, Kind::ConfigMap, Some("default"), "cfg").expect("stored");
    assert_eq!(cm["data"]["a"], "1");
    assert_eq!(cm["data"]["url"], "http://x?y=z");
    fails(
        &mut c,
        "create configmap cfg --from-literal=a=1",
        "error: failed to create configmap: configmaps \"cfg\" already exists\n",
    );
    fails(
        &mut c,
        "create configmap x --from-literal=novalue",
        "error: invalid literal source novalue, expected key=value\n",
    );
    fails(
        &mut c,
        "create configmap x --from-literal=a=1 --from-literal=a=2",
        "error: cannot add key \"a\", another key by that name already exists in Data for ConfigMap \"x\"\n",
    );
    fails(
        &mut c,
        "create configmap x --from-literal=a/b=1",
        "error: \"a/b\" is not a valid key name for a ConfigMap: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')\n",
    );
    fails(
        &mut c,
        "create configmap x --from-file=app.conf",
        "error: error reading app.conf: no such file or directory\n",
    );
}

#[test]
fn create_secret_generic_base64_encodes_and_the_server_defaults_the_type() {
    let mut c = Cluster::new_default(1);
    ok(
        &mut c,
        "create secret generic s --from-literal=user=admin --dry-run=client -o yaml",
        "apiVersion: v1\ndata:\n  user: YWRtaW4=\nkind: Secret\nmetadata:\n  name: s\n",
    );
    ok(&mut c, "create secret generic s --from-literal=user=admin --from-literal=pass=s3cr3t!", "secret/s created\n");
    let s = stored(&c, Kind::Secret, Some("default"), "s").expect("stored");
    assert_eq!(s["data"]["user"], "YWRtaW4=");
    assert_eq!(s["data"]["pass"], "czNjcjN0IQ==");
    assert_eq!(s["type"], "Opaque");
    fails(
        &mut c,
        "create secret generic s --from-literal=user=admin",
        "error: failed to create secret secrets \"s\" already exists\n",
    );
}

#[test]
fn create_service_names_ports_after_the_tcp_spec_and_wraps_errors_with_the_type() {
    let mut c = Cluster::new_default(1);
    let expected = "apiVersion: v1
kind: Service
metadata:
  labels:
    app: web
  name: web
spec:
  ports:
  - name: 80-8080
    port: 80
    protocol: TCP
    targetPort: 8080
  selector:
    app: web
  type: ClusterIP
status:
  loadBalancer: {}
";
    ok(&mut c, "create service clusterip web --tcp=80:8080 --dry-run=client -o yaml", expected);
    ok(&mut c, "create service clusterip web --tcp=80:8080", "service/web created\n");
    let svc = stored(&c, Kind::Service, Some("default"), "web").expect("stored");
    assert_eq!(svc["spec"]["ports"][0]["name"], "80-8080");
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 8080);
    assert!(svc["spec"]["clusterIP"].as_str().is_some_and(|ip| ip.starts_with("10.")));
    fails(
        &mut c,
        "create service clusterip web --tcp=80",
        "error: failed to create ClusterIP service: services \"web\" already exists\n",
    );
    ok(&mut c, "create service nodeport np --tcp=80", "service/np created\n");
    let np = stored(&c, Kind::Service, Some("default"), "np").expect("stored");
    assert_eq!(np["spec"]["type"], "NodePort");
    assert!(np["spec"]["ports"][0]["nodePort"].as_i64().is_some_and(|p| (30000..=32767).contains(&p)));
    ok(&mut c, "create service loadbalancer lb --tcp=443:8443", "service/lb created\n");
    fails(&mut c, "create service clusterip x", "error: at least one tcp port specifier must be provided\n");
    ok(&mut c, "create service clusterip headless --clusterip=None", "service/headless created\n");
    let headless = stored(&c, Kind::Service, Some("default"), "headless").expect("stored");
    assert_eq!(headless["spec"]["clusterIP"], "None");
}

#[test]
fn create_serviceaccount_and_priorityclass_print_their_group_qualified_names() {
    let mut c = Cluster::new_default(1);
    ok(&mut c, "create serviceaccount bot", "serviceaccount/bot created\n");
    fails(&mut c, "create sa bot", "error: failed to create serviceaccount: serviceaccounts \"bot\" already exists\n");
    ok(
        &mut c,
        "create priorityclass high --value=1000 --description=important --dry-run=client -o yaml",
        "apiVersion: scheduling.k8s.io/v1\ndescription: important\nkind: PriorityClass\nmetadata:\n  name: high\npreemptionPolicy: PreemptLowerPriority\nvalue: 1000\n",
    );
    ok(&mut c, "create priorityclass high --value=1000", "priorityclass.scheduling.k8s.io/high created\n");
    let pc = stored(&c, Kind::PriorityClass, None, "high").expect("stored");
    assert_eq!(pc["value"], 1000);
}

#[test]
fn create_role_groups_resources_by_api_group_through_the_servers_resource_names() {
    let mut c = Cluster::new_default(1);
    let expected = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: r
rules:
- apiGroups:
  - \"\"
  resources:
  - pods
  - pods/log
  verbs:
  - get
  - list
- apiGroups:
  - apps
  resources:
  - deployments
  verbs:
  - get
  - list
";
    ok(
        &mut c,
        "create role r --verb=get,list --verb=get --resource=po,deploy --resource=pods/log --dry-run=client -o yaml",
        expected,
    );
    ok(
        &mut c,
        "create role pod-reader --verb=get --verb=list --resource=pods",
        "role.rbac.authorization.k8s.io/pod-reader created\n",
    );
    let role = stored(&c, Kind::Role, Some("default"), "pod-reader").expect("stored");
    assert_eq!(role["rules"][0]["verbs"], serde_json::json!(["get", "list"]));
    fails(
        &mut c,
        "create role x --verb=get --resource=widgets",
        "the server doesn't have a resource type \"widgets\"\n",
    );
    fails(&mut c, "create role x --resource=pods", "error: at least one verb must be specified\n");
    fails(&mut c, "create role x --verb=get", "error: at least one resource must be specified\n");
}

#[test]
fn a_nonstandard_verb_is_warned_about_but_accepted() {
    let mut c = Cluster::new_default(1);
    ok(
        &mut c,
        "create role x --verb=frob --resource=pods --dry-run=client -o name",
        "Warning: 'frob' is not a standard resource verb\nrole.rbac.authorization.k8s.io/x\n",
    );
    fails(&mut c, "create role x --verb=bind --resource=pods", "error: can not perform 'bind' on 'pods' in group ''\n");
}

#[test]
fn create_clusterrole_accepts_non_resource_urls_and_checks_their_verbs() {
    let mut c = Cluster::new_default(1);
    ok(
        &mut c,
        "create clusterrole health --verb=get --non-resource-url=/healthz",
        "clusterrole.rbac.authorization.k8s.io/health created\n",
    );
    let cr = stored(&c, Kind::ClusterRole, None, "health").expect("stored");
    assert_eq!(cr["rules"][0]["nonResourceURLs"], serde_json::json!(["/healthz"]));
    fails(
        &mut c,
        "create clusterrole x --verb=list --non-resource-url=/healthz",
        "error: invalid verb: 'list' for nonResourceURL\n",
    );
    fails(&mut c, "create clusterrole x --verb=get", "error: one of resource or nonResourceURL must be specified\n");
    ok(
        &mut c,
        "create clusterrole node-reader --verb=get --resource=nodes",
        "clusterrole.rbac.authorization.k8s.io/node-reader created\n",
    );
}

#[test]
fn create_rolebinding_lists_users_groups_then_service_accounts() {
    let mut c = Cluster::new_default(1);
    let expected = "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rb
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: r
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: jane
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: dev
- kind: ServiceAccount
  name: bot
  namespace: default
";
    ok(
        &mut c,
        "create rolebinding rb --role=r --serviceaccount=default:bot --user=jane --group=dev --dry-run=client -o yaml",
        expected,
    );
    ok(
        &mut c,
        "create rolebinding rb --clusterrole=view --user=jane",
        "rolebinding.rbac.authorization.k8s.io/rb created\n",
    );
    fails(
        &mut c,
        "create rolebinding rb --clusterrole=view --user=jane",
        "error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io \"rb\" already exists\n",
    );
    fails(&mut c, "create rolebinding x --user=jane", "error: exactly one of clusterrole or role must be specified\n");
    fails(
        &mut c,
        "create rolebinding x --role=r --serviceaccount=bot",
        "error: serviceaccount must be <namespace>:<name>\n",
    );
    fails(&mut c, "create clusterrolebinding x --user=jane", "error: required flag(s) \"clusterrole\" not set\n");
    ok(
        &mut c,
        "create clusterrolebinding jane-view --clusterrole=view --user=jane",
        "clusterrolebinding.rbac.authorization.k8s.io/jane-view created\n",
    );
    let crb = stored(&c, Kind::ClusterRoleBinding, None, "jane-view").expect("stored");
    assert_eq!(crb["roleRef"]["name"], "view");
    assert_eq!(crb["subjects"][0]["name"], "jane");
}

#[test]
fn create_job_and_cronjob_take_the_command_after_the_double_dash() {
    let mut c = Cluster::new_default(1);
    let job = "apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    metadata: {}
    spec:
      containers:
      - command:
        - perl
        - -Mbignum=bpi
        - -wle
        - print bpi(2000)
        image: perl:5.34
        name: pi
        resources: {}
      restartPolicy: Never
status: {}
";
    ok(
        &mut c,
        "create job pi --image=perl:5.34 --dry-run=client -o yaml -- perl -Mbignum=bpi -wle 'print bpi(2000)'",
        job,
    );
    ok(&mut c, "create job pi --image=perl:5.34 -- perl -wle 'print 1'", "job.batch/pi created\n");
    let stored_job = stored(&c, Kind::Job, Some("default"), "pi").expect("stored");
    assert_eq!(stored_job["spec"]["template"]["spec"]["containers"][0]["command"][2], "print 1");
    assert_eq!(stored_job["spec"]["backoffLimit"], 6);
    fails(&mut c, "create job x", "error: either --image or --from must be specified\n");
    let cronjob = "apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
spec:
  jobTemplate:
    metadata:
      name: tick
    spec:
      template:
        metadata: {}
        spec:
          containers:
          - command:
            - date
            image: busybox
            name: tick
            resources: {}
          restartPolicy: OnFailure
  schedule: '*/1 * * * *'
status: {}
";
    ok(
        &mut c,
        "create cronjob tick --image=busybox --schedule='*/1 * * * *' --dry-run=client -o yaml -- date",
        cronjob,
    );
    ok(&mut c, "create cronjob tick --image=busybox --schedule='*/1 * * * *' -- date", "cronjob.batch/tick created\n");
    fails(&mut c, "create cronjob x --image=busybox", "error: required flag(s) \"schedule\" not set\n");
    ok(&mut c, "create job manual --from=cronjob/tick", "job.batch/manual created\n");
    let manual = stored(&c, Kind::Job, Some("default"), "manual").expect("stored");
    assert_eq!(manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"], "manual");
    assert_eq!(manual["metadata"]["ownerReferences"][0]["name"], "tick");
}

#[test]
fn run_creates_a_pod_labelled_run_name() {
    let mut c = Cluster::new_default(1);
    let expected = "apiVersion: v1
kind: Pod
metadata:
  labels:
    run: nginx
  name: nginx
spec:
  containers:
  - image: nginx
    name: nginx
    resources: {}
  dnsPolicy: ClusterFirst
  restartPolicy: Always
status: {}
";
    ok(&mut c, "run nginx --image=nginx --dry-run=client -o yaml", expected);
    ok(&mut c, "run nginx --image=nginx --port=80", "pod/nginx created\n");
    let pod = stored(&c, Kind::Pod, Some("default"), "nginx").expect("stored");
    assert_eq!(pod["metadata"]["labels"]["run"], "nginx");
    assert_eq!(pod["spec"]["containers"][0]["ports"][0]["containerPort"], 80);
    fails(&mut c, "run nginx --image=nginx", "Error from server (AlreadyExists): pods \"nginx\" already exists\n");
    ok(
        &mut c,
        "run bb --image=busybox --restart=Never --labels=app=bb,tier=x --env=A=1 -- sleep 3600",
        "pod/bb created\n",
    );
    let bb = stored(&c, Kind::Pod, Some("default"), "bb").expect("stored");
    assert_eq!(bb["spec"]["restartPolicy"], "Never");
    assert_eq!(bb["metadata"]["labels"], serde_json::json!({"app": "bb", "tier": "x"}));
    assert_eq!(bb["spec"]["containers"][0]["args"], serde_json::json!(["sleep", "3600"]));
    assert_eq!(bb["spec"]["containers"][0]["env"][0], serde_json::json!({"name": "A", "value": "1"}));
    ok(&mut c, "run cmd --image=busybox --command -- sleep 1", "pod/cmd created\n");
    let cmd = stored(&c, Kind::Pod, Some("default"), "cmd").expect("stored");
    assert_eq!(cmd["spec"]["containers"][0]["command"], serde_json::json!(["sleep", "1"]));
}

#[test]
fn run_refuses_what_kubectl_refuses_before_sending_anything() {
    let mut c = Cluster::new_default(1);
    // cobra's check of the flag marked required, then run's own (both checked against kubectl v1.33).
    fails(&mut c, "run x", "error: required flag(s) \"image\" not set\n");
    fails(&mut c, "run x --image=", "error: --image is required\n");
    fails(&mut c, "run --image=nginx", "error: NAME is required for run\nSee 'kubectl run -h' for help and examples\n");
    fails(
        &mut c,
        "run x --image=nginx --restart=Sometimes",
        "error: invalid restart policy: Sometimes\nSee 'kubectl run -h' for help and examples\n",
    );
    fails(&mut c, "run x --image=Nginx", "error: Invalid image name \"Nginx\": invalid reference format\n");
    fails(&mut c, "run x --image=nginx --env=1A=b", "error: invalid env: 1A=b\n");
    fails(
        &mut c,
        "run x --image=nginx --rm",
        "error: --rm should only be used for attached containers\nSee 'kubectl run -h' for help and examples\n",
    );
}

#[test]
fn expose_takes_the_selector_ports_and_labels_of_what_it_exposes() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx --port=8080");
    ok(&mut c, "expose deployment web --port=80 --target-port=8080", "service/web exposed\n");
    let svc = stored(&c, Kind::Service, Some("default"), "web").expect("stored");
    assert_eq!(svc["spec"]["selector"], serde_json::json!({"app": "web"}));
    assert_eq!(svc["metadata"]["labels"], serde_json::json!({"app": "web"}));
    assert_eq!(svc["spec"]["ports"][0], serde_json::json!({"port": 80, "protocol": "TCP", "targetPort": 8080}));
    ok(&mut c, "expose deploy/web --name=web-np --type=NodePort", "service/web-np exposed\n");
    let np = stored(&c, Kind::Service, Some("default"), "web-np").expect("stored");
    assert_eq!(np["spec"]["ports"][0]["port"], 8080);
    assert_eq!(np["spec"]["type"], "NodePort");
    kubectl(&mut c, "run nginx --image=nginx --port=80");
    let expected = "apiVersion: v1
kind: Service
metadata:
  labels:
    run: nginx
  name: nginx
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 80
  selector:
    run: nginx
status:
  loadBalancer: {}
";
    ok(&mut c, "expose pod nginx --dry-run=client -o yaml", expected);
    ok(&mut c, "expose pod nginx", "service/nginx exposed\n");
    ok(&mut c, "expose service nginx --name=nginx-copy --port=8081", "service/nginx-copy exposed\n");
    let copy = stored(&c, Kind::Service, Some("default"), "nginx-copy").expect("stored");
    assert_eq!(copy["spec"]["selector"], serde_json::json!({"run": "nginx"}));
}

#[test]
fn expose_refuses_kinds_without_pods_and_objects_without_ports() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create configmap cfg --from-literal=a=b");
    fails(&mut c, "expose configmap cfg --port=80", "error: cannot expose a ConfigMap\n");
    kubectl(&mut c, "create deployment web --image=nginx");
    fails(&mut c, "expose deployment web", "error: couldn't find port via --port flag or introspection\n");
    fails(
        &mut c,
        "expose deployment nope --port=80",
        "Error from server (NotFound): deployments.apps \"nope\" not found\n",
    );
    fails(&mut c, "expose deployment", "error: resource(s) were provided, but no name was specified\n");
}

#[test]
fn words_that_are_no_command_or_subcommand_get_kubectls_errors() {
    let mut c = Cluster::new_default(7);
    assert_eq!(kubectl(&mut c, "create"), ("error: must specify one of -f and -k\n".into(), Some(1)));
    assert_eq!(
        kubectl(&mut c, "create foo bar").0,
        "error: Unexpected args: [foo bar]\nSee 'kubectl create -h' for help and examples\n"
    );
    assert_eq!(
        kubectl(&mut c, "rollout foo deploy/web").0,
        "error: unknown command \"foo\"\nSee 'kubectl rollout -h' for help and examples\n"
    );
    assert_eq!(
        kubectl(&mut c, "gte pods").0,
        "error: unknown command \"gte\" for \"kubectl\"\n\nDid you mean this?\n\tget\n"
    );
    assert_eq!(
        kubectl(&mut c, "get pods --foo").0,
        "error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"
    );
}

#[test]
fn quota_pdb_ingress_and_docker_registry_generators_create_what_kubectl_builds() {
    let mut c = Cluster::new_default(8);
    assert_eq!(kubectl(&mut c, "create quota q1 --hard=pods=10,cpu=1"), ("resourcequota/q1 created\n".into(), Some(0)));
    let q = stored(&c, Kind::ResourceQuota, Some("default"), "q1").expect("stored");
    assert_eq!(q["spec"]["hard"], serde_json::json!({"cpu": "1", "pods": "10"}));
    assert_eq!(
        kubectl(&mut c, "create pdb web --selector=app=web --min-available=1"),
        ("poddisruptionbudget.policy/web created\n".into(), Some(0))
    );
    assert_eq!(
        kubectl(&mut c, "create pdb p --selector=app=web").0,
        "error: one of min-available or max-unavailable must be specified\n"
    );
    assert_eq!(
        kubectl(&mut c, "create ingress web --rule=foo.com/*=web:80,tls=cert --class=nginx"),
        ("ingress.networking.k8s.io/web created\n".into(), Some(0))
    );
    let ing = stored(&c, Kind::Ingress, Some("default"), "web").expect("stored");
    assert_eq!(ing["spec"]["rules"][0]["http"]["paths"][0]["pathType"], "Prefix");
    assert_eq!(ing["spec"]["tls"][0], serde_json::json!({"hosts": ["foo.com"], "secretName": "cert"}));
    assert_eq!(
        kubectl(&mut c, "create ingress bad --rule=foo.com=web:80").0,
        "error: rule foo.com=web:80 is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]\n"
    );
    assert_eq!(
        kubectl(
            &mut c,
            "create secret docker-registry reg --docker-server=r.io --docker-username=u --docker-password=p"
        ),
        ("secret/reg created\n".into(), Some(0))
    );
    let s = stored(&c, Kind::Secret, Some("default"), "reg").expect("stored");
    assert_eq!(s["type"], "kubernetes.io/dockerconfigjson");
    assert_eq!(
        s["data"][".dockerconfigjson"],
        "eyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fQ=="
    );
}
