//! `kubectl get` with several resource types: `get pv,pvc`, `get deploy,rs,po -o wide`, `get all`,
//! `TYPE/NAME` pairs; one table per type with a blank line between them and `kind/name` names once more
//! than one type is listed (or objects of more than one kind are fetched by name).

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: nginx, image: nginx:1.27}\n";

fn cluster() -> Cluster {
    let mut c = Cluster::new_default(5);
    apply(&mut c, DEPLOY);
    c.advance_ms(30_000);
    c
}

/// The names of the web pods, as `get pods -o name` prints them.
fn pods(c: &mut Cluster) -> Vec<String> {
    kubectl(c, "get pods -l app=web -o name").0.lines().map(|l| l.trim_start_matches("pod/").to_string()).collect()
}

#[test]
fn several_types_print_one_table_each_with_kind_names_and_a_blank_line_between() {
    let mut c = cluster();
    let rs = kubectl(&mut c, "get rs -o name").0.trim().trim_start_matches("replicaset.apps/").to_string();
    let p = pods(&mut c);
    let expected = format!(
        "NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/web   2/2     2            2           30s

NAME                             DESIRED   CURRENT   READY   AGE
replicaset.apps/{rs}   2         2         2       30s

NAME                       READY   STATUS    RESTARTS   AGE
pod/{}   1/1     Running   0          30s
pod/{}   1/1     Running   0          30s
",
        p[0], p[1]
    );
    assert_eq!(kubectl(&mut c, "get deploy,rs,po"), (expected, Some(0)));
    let (wide, code) = kubectl(&mut c, "get deployments,replicasets,pods -o wide");
    assert_eq!(code, Some(0));
    let header_lines: Vec<&str> = wide.lines().filter(|l| l.starts_with("NAME ")).collect();
    assert_eq!(header_lines.len(), 3, "{wide}");
    assert!(header_lines[0].ends_with("AGE   CONTAINERS   IMAGES       SELECTOR"), "{wide}");
    assert!(header_lines[2].ends_with("IP           NODE     NOMINATED NODE   READINESS GATES"), "{wide}");
    assert!(wide.contains(&format!("\nreplicaset.apps/{rs}   2         2         2       30s   nginx        nginx:1.27   app=web,pod-template-hash=")), "{wide}");
    assert_eq!(wide.matches("\n\n").count(), 2, "{wide}");
}

#[test]
fn get_all_lists_the_workload_category_in_discovery_order() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "get all");
    assert_eq!(code, Some(0));
    let sections: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(sections.len(), 4, "{out}");
    assert!(sections[0].lines().skip(1).all(|l| l.starts_with("pod/web-")), "{out}");
    assert_eq!(
        sections[1],
        "NAME                 TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\nservice/kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   33s"
    );
    assert!(sections[2].starts_with("NAME                  READY   UP-TO-DATE   AVAILABLE   AGE\ndeployment.apps/web "));
    assert!(sections[3]
        .starts_with("NAME                             DESIRED   CURRENT   READY   AGE\nreplicaset.apps/web-"));
    // -A: a NAMESPACE column in every section, and kube-system's DaemonSet between Services and Deployments.
    let (all, _) = kubectl(&mut c, "get all -A");
    let heads: Vec<&str> = all.split("\n\n").map(|s| s.lines().nth(1).unwrap_or("")).collect();
    assert_eq!(heads.len(), 5, "{all}");
    assert!(heads[0].starts_with("default       pod/web-"), "{all}");
    assert!(heads[1].starts_with("default       service/kubernetes "), "{all}");
    assert!(heads[2].starts_with("kube-system   daemonset.apps/kube-proxy "), "{all}");
    assert!(heads[3].starts_with("default       deployment.apps/web "), "{all}");
    assert!(heads[4].starts_with("default       replicaset.apps/web-"), "{all}");
}

#[test]
fn empty_listings_name_the_namespace_unless_all_namespaces() {
    let mut c = cluster();
    assert_eq!(kubectl(&mut c, "get pv,pvc"), ("No resources found in default namespace.\n".into(), Some(0)));
    assert_eq!(kubectl(&mut c, "get pv,pvc -A"), ("No resources found\n".into(), Some(0)));
    assert_eq!(kubectl(&mut c, "get pv,sc"), ("No resources found\n".into(), Some(0)));
    // Only one kind found, two asked: kind names all the same, as the real kubectl prints them (each
    // listed type is a Table to it, the empty one too).
    let p = pods(&mut c);
    let (out, _) = kubectl(&mut c, "get pods,deploy -l app=web");
    let first = format!("pod/{}", p[0]);
    assert_eq!(out.lines().nth(1).map(|l| l.split(' ').next()), Some(Some(first.as_str())), "{out}");
    let (shown, _) = kubectl(&mut c, "get pods -l app=web --show-kind");
    assert!(shown.contains(&format!("\npod/{} ", p[0])), "{shown}");
}

#[test]
fn type_name_pairs_no_headers_names_and_errors() {
    let mut c = cluster();
    assert_eq!(
        kubectl(&mut c, "get deploy/web svc/kubernetes"),
        (
            "NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/web   2/2     2            2           30s

NAME                 TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
service/kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   33s
"
            .into(),
            Some(0)
        )
    );
    assert_eq!(
        kubectl(&mut c, "get deploy,svc --no-headers"),
        (
            "deployment.apps/web   2/2   2     2     30s\nservice/kubernetes   ClusterIP   10.96.0.1   <none>   443/TCP   33s\n"
                .into(),
            Some(0)
        )
    );
    assert_eq!(
        kubectl(&mut c, "get deploy,nodes -o name"),
        ("deployment.apps/web\nnode/controlplane\nnode/node01\nnode/node02\n".into(), Some(0))
    );
    let (yaml, _) = kubectl(&mut c, "get deploy/web svc/kubernetes -o yaml");
    assert!(yaml.starts_with("apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n"), "{yaml}");
    assert!(yaml.contains("\n- apiVersion: v1\n  kind: Service\n"), "{yaml}");
    // What is found is printed, then the errors.
    assert_eq!(
        kubectl(&mut c, "get deploy/web svc/nope"),
        (
            "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    2/2     2            2           30s\nError from server (NotFound): services \"nope\" not found\n".into(),
            Some(1)
        )
    );
    assert_eq!(
        kubectl(&mut c, "get pods,nope"),
        ("error: the server doesn't have a resource type \"nope\"\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "get pod/x y"),
        ("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "get pod/"),
        ("error: arguments in resource/name form must have a single resource and name\n".into(), Some(1))
    );
}

#[test]
fn several_types_asked_name_the_kind_even_when_only_one_of_them_has_objects() {
    // The real kubectl v1.32 against kubeglass serve: each listed type is a Table to kubectl, an empty one
    // too, so `deploy,rs,pods` with only a pod prints `pod/solo`; one type alone does not.
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "run solo --image=nginx");
    c.advance_ms(30_000);
    let (several, _) = kubectl(&mut c, "get deploy,rs,pods");
    assert_eq!(several, "NAME       READY   STATUS    RESTARTS   AGE\npod/solo   1/1     Running   0          30s\n");
    let (one, _) = kubectl(&mut c, "get pods");
    assert_eq!(one, "NAME   READY   STATUS    RESTARTS   AGE\nsolo   1/1     Running   0          30s\n");
    // A name that is not found is no Table: the kind stays off.
    let (named, _) = kubectl(&mut c, "get pod/solo deploy/nope");
    assert!(named.starts_with("NAME   READY"), "{named}");
}
