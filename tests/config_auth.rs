//! `kubectl config` against the kubeconfig file the cluster shares with kubectl (kubeadm's names plus a
//! context per configured user), and `kubectl auth can-i` / `whoami`, answered by the apiserver's review
//! APIs without storing anything.

use kubeglass::cluster::{Cluster, ClusterConfig, UserConfig};

use crate::kubectl;

fn ok(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(0)), "kubectl {line}");
}

fn fails(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(1)), "kubectl {line}");
}

fn with_jane() -> Cluster {
    let config = ClusterConfig {
        users: vec![UserConfig { name: "jane".into(), token: "jane-token".into(), groups: vec!["dev".into()] }],
        ..ClusterConfig::default()
    };
    Cluster::new(config, 1)
}

#[test]
fn get_contexts_lists_kubeadms_admin_context_and_one_per_user() {
    let mut c = with_jane();
    ok(
        &mut c,
        "config get-contexts",
        "CURRENT   NAME                          CLUSTER      AUTHINFO           NAMESPACE\n          jane@kubernetes               kubernetes   jane               \n*         kubernetes-admin@kubernetes   kubernetes   kubernetes-admin   \n",
    );
    ok(&mut c, "config get-contexts -o name", "jane@kubernetes\nkubernetes-admin@kubernetes\n");
    ok(&mut c, "config current-context", "kubernetes-admin@kubernetes\n");
    fails(
        &mut c,
        "config get-contexts nope",
        "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE\nerror: context nope not found\n",
    );
}

#[test]
fn use_context_switches_the_user_kubectl_acts_as() {
    let mut c = with_jane();
    ok(&mut c, "config use-context jane@kubernetes", "Switched to context \"jane@kubernetes\".\n");
    assert_eq!(c.user(), "jane");
    fails(
        &mut c,
        "get pods",
        "Error from server (Forbidden): pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n",
    );
    ok(&mut c, "config current-context", "jane@kubernetes\n");
    ok(
        &mut c,
        "config use-context kubernetes-admin@kubernetes",
        "Switched to context \"kubernetes-admin@kubernetes\".\n",
    );
    assert_eq!(c.user(), "kubernetes-admin");
    fails(&mut c, "config use-context nope", "error: no context exists with the name: \"nope\"\n");
    fails(&mut c, "config use-context", "error: Unexpected args: []\n");
}

#[test]
fn set_context_with_current_changes_the_namespace_later_commands_use() {
    let mut c = with_jane();
    ok(&mut c, "create namespace dev", "namespace/dev created\n");
    ok(&mut c, "config set-context --current --namespace=dev", "Context \"kubernetes-admin@kubernetes\" modified.\n");
    assert_eq!(c.namespace(), "dev");
    ok(&mut c, "create configmap settings --from-literal=a=b", "configmap/settings created\n");
    assert!(crate::create_verbs::stored(&c, kubeglass::api::Kind::ConfigMap, Some("dev"), "settings").is_some());
    ok(
        &mut c,
        "config get-contexts kubernetes-admin@kubernetes",
        "CURRENT   NAME                          CLUSTER      AUTHINFO           NAMESPACE\n*         kubernetes-admin@kubernetes   kubernetes   kubernetes-admin   dev\n",
    );
    ok(&mut c, "config set-context scratch --namespace=tmp --user=jane", "Context \"scratch\" created.\n");
    fails(&mut c, "config set-context", "error: you must specify a non-empty context name or --current\n");
    fails(&mut c, "config set-context x --current", "error: you cannot specify both a context name and --current\n");
    c.set_namespace("default");
    ok(&mut c, "config get-contexts kubernetes-admin@kubernetes -o name", "kubernetes-admin@kubernetes\n");
    assert_eq!(c.namespace(), "default");
}

#[test]
fn config_view_shortens_credentials_as_kubectl_does() {
    let mut c = with_jane();
    kubectl(&mut c, "config set-context --current --namespace=dev");
    let expected = "apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: DATA+OMITTED
    server: https://192.168.56.10:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: jane
  name: jane@kubernetes
- context:
    cluster: kubernetes
    namespace: dev
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
kind: Config
users:
- name: jane
  user:
    token: REDACTED
- name: kubernetes-admin
  user:
    client-certificate-data: DATA+OMITTED
    client-key-data: DATA+OMITTED
";
    ok(&mut c, "config view", expected);
    let minified = kubectl(&mut c, "config view --minify").0;
    assert!(!minified.contains("jane"), "{minified}");
    assert!(minified.contains("namespace: dev"), "{minified}");
}

#[test]
fn the_scenario_user_switch_is_a_context_switch() {
    let mut c = with_jane();
    c.set_user("jane").expect("jane is configured");
    ok(&mut c, "config current-context", "jane@kubernetes\n");
    assert!(c.set_user("nobody").is_err());
}

#[test]
fn can_i_answers_yes_or_no_with_the_exit_code_and_stores_nothing() {
    let mut c = with_jane();
    // Once the new cluster has settled, the leaders renewing their Leases move the revision, but no key is
    // added.
    c.advance_ms(30_000);
    let keys = |c: &Cluster| c.etcd_member(0).map(|m| m.status().db_keys);
    let before = keys(&c);
    ok(&mut c, "auth can-i create pods", "yes\n");
    fails(&mut c, "auth can-i create pods --as jane", "no\n");
    fails(&mut c, "auth can-i create pods -q --as jane", "");
    assert_eq!(keys(&c), before);
    ok(&mut c, "auth can-i list nodes", "Warning: resource 'nodes' is not namespace scoped\n\nyes\n");
    ok(&mut c, "auth can-i get /healthz", "yes\n");
    ok(&mut c, "auth can-i frob pods", "Warning: verb 'frob' is not a known verb\n\nyes\n");
    ok(&mut c, "auth can-i get widgets", "Warning: the server doesn't have a resource type 'widgets'\n\nyes\n");
    fails(
        &mut c,
        "auth can-i create",
        "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.\n",
    );
}

#[test]
fn can_i_follows_rbac_bindings_per_namespace_and_name() {
    let mut c = with_jane();
    kubectl(&mut c, "create namespace dev");
    kubectl(&mut c, "create role pod-reader --verb=get,list --resource=pods -n dev");
    kubectl(&mut c, "create rolebinding jane-reads --role=pod-reader --user=jane -n dev");
    kubectl(&mut c, "create role one-cm --verb=get --resource=configmaps --resource-name=settings");
    kubectl(&mut c, "create rolebinding jane-cm --role=one-cm --group=dev");
    c.set_user("jane").expect("jane is configured");
    ok(&mut c, "auth can-i list pods -n dev", "yes\n");
    fails(&mut c, "auth can-i list pods", "no\n");
    fails(&mut c, "auth can-i delete pods -n dev", "no\n");
    ok(&mut c, "auth can-i get configmaps/settings", "yes\n");
    fails(&mut c, "auth can-i get configmaps/other", "no\n");
    fails(
        &mut c,
        "auth can-i list pods -n dev --as jane",
        "Error from server (Forbidden): users \"jane\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope\n",
    );
    fails(&mut c, "auth can-i get /healthz", "no\n");
}

#[test]
fn can_i_list_prints_the_rules_that_apply_in_the_namespace() {
    let mut c = with_jane();
    kubectl(&mut c, "create role pod-reader --verb=get,list --resource=pods,pods/log");
    kubectl(&mut c, "create rolebinding jane-reads --role=pod-reader --user=jane");
    c.set_user("jane").expect("jane is configured");
    let expected = "Resources                                       Non-Resource URLs   Resource Names   Verbs
selfsubjectreviews.authentication.k8s.io        []                  []               [create]
selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]
pods/log                                        []                  []               [get list]
pods                                            []                  []               [get list]
";
    ok(&mut c, "auth can-i --list", expected);
    fails(&mut c, "auth can-i --list get pods", "error: list option must be specified with no arguments\n");
}

#[test]
fn whoami_prints_the_authenticated_user_and_groups() {
    let mut c = with_jane();
    ok(
        &mut c,
        "auth whoami",
        "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [kubeadm:cluster-admins system:authenticated]\n",
    );
    ok(&mut c, "auth whoami --as jane", "ATTRIBUTE   VALUE\nUsername    jane\nGroups      [system:authenticated]\n");
    c.set_user("jane").expect("jane is configured");
    ok(&mut c, "auth whoami", "ATTRIBUTE   VALUE\nUsername    jane\nGroups      [dev system:authenticated]\n");
    let yaml = kubectl(&mut c, "auth whoami -o yaml").0;
    assert!(yaml.contains("kind: SelfSubjectReview"), "{yaml}");
    assert!(yaml.contains("username: jane"), "{yaml}");
}

#[test]
fn a_token_flag_replaces_a_token_user_but_not_the_admins_client_certificate() {
    let mut c = with_jane();
    // kubernetes-admin authenticates with its client certificate, which the apiserver's x509
    // authenticator takes before any bearer token: --token changes nothing.
    let admin =
        "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [kubeadm:cluster-admins system:authenticated]\n";
    ok(&mut c, "auth whoami", admin);
    ok(&mut c, "--token=not-a-real-token auth whoami", admin);
    // jane's entry holds a token, and the flag's replaces it.
    ok(&mut c, "config use-context jane@kubernetes", "Switched to context \"jane@kubernetes\".\n");
    fails(&mut c, "get pods --token=not-a-real-token", "error: You must be logged in to the server (Unauthorized)\n");
    // Asking for a service account's token is RBAC's `create` on the `serviceaccounts/token` subresource.
    fails(
        &mut c,
        "create token default",
        "error: failed to create token: serviceaccounts \"default\" is forbidden: User \"jane\" cannot create resource \"serviceaccounts/token\" in API group \"\" in the namespace \"default\"\n",
    );
}
