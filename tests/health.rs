//! kube-apiserver's `/livez`, `/readyz` and `/healthz` as `kubectl get --raw` reads them, with etcd up, stopped
//! and without quorum, and `get --raw` of API paths and `/version`.

use kubeglass::apiserver::etcd_client;
use kubeglass::cluster::{Cluster, ClusterConfig};

use crate::{apply, kubectl};

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n";

#[test]
fn livez_readyz_and_healthz_answer_ok_and_list_their_checks_when_verbose() {
    let mut c = Cluster::new_default(1);
    for path in ["/livez", "/readyz", "/healthz"] {
        assert_eq!(kubectl(&mut c, &format!("get --raw {path}")), ("ok".to_string(), Some(0)), "{path}");
    }
    let (out, code) = kubectl(&mut c, "get --raw /readyz?verbose");
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(&lines[..5], ["[+]ping ok", "[+]log ok", "[+]etcd ok", "[+]etcd-readiness ok", "[+]informer-sync ok"]);
    assert!(lines.contains(&"[+]poststarthook/rbac/bootstrap-roles ok"), "{out}");
    assert!(lines.contains(&"[+]autoregister-completion ok"), "{out}");
    assert_eq!(&lines[lines.len() - 2..], ["[+]shutdown ok", "readyz check passed"]);
    let (out, _) = kubectl(&mut c, "get --raw '/livez?verbose'");
    assert!(out.starts_with("[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/"), "{out}");
    assert!(out.ends_with("[+]poststarthook/apiservice-openapiv3-controller ok\nlivez check passed\n"), "{out}");
    assert!(!out.contains("etcd-readiness") && !out.contains("shutdown"), "{out}");
    let (out, _) = kubectl(&mut c, "get --raw /healthz?verbose");
    assert!(out.ends_with("healthz check passed\n"), "{out}");
    assert_eq!(kubectl(&mut c, "get --raw /livez/etcd"), ("ok".to_string(), Some(0)));
}

#[test]
fn with_etcd_stopped_the_etcd_checks_fail_with_their_reason_withheld() {
    let mut c = Cluster::new_default(1);
    c.stop("etcd").unwrap();
    c.advance_ms(2_000);
    let (out, code) = kubectl(&mut c, "get --raw /readyz?verbose");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with(
            "Error from server (InternalError): an error on the server (\"[+]ping ok\\n[+]log ok\\n[-]etcd failed: reason withheld\\n[-]etcd-readiness failed: reason withheld\\n[+]informer-sync ok\\n"
        ),
        "{out}"
    );
    assert!(out.ends_with("\\nreadyz check failed\") has prevented the request from succeeding\n"), "{out}");
    // Without `verbose` the failing body is the same list: the handler is always verbose on failure.
    assert_eq!(kubectl(&mut c, "get --raw /readyz"), (out, Some(1)));
    let (out, code) = kubectl(&mut c, "get --raw /livez");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("\\n[-]etcd failed: reason withheld\\n"), "{out}");
    assert!(out.ends_with("\\nlivez check failed\") has prevented the request from succeeding\n"), "{out}");
    assert_eq!(
        kubectl(&mut c, "get --raw /livez/etcd"),
        (
            "Error from server (InternalError): an error on the server (\"internal server error: error getting data from etcd: context deadline exceeded\") has prevented the request from succeeding\n".to_string(),
            Some(1)
        )
    );
    assert_eq!(kubectl(&mut c, "get --raw /livez/ping"), ("ok".to_string(), Some(0)));
    assert_eq!(kubectl(&mut c, "get --raw /readyz?exclude=etcd&exclude=etcd-readiness"), ("ok".to_string(), Some(0)));
    c.start("etcd").unwrap();
    // The apiserver's etcd channel reconnects on its next gRPC backoff attempt (when that comes depends on
    // how long the channel has been failing; etcd_client's tests pin the backoff), at the latest after the
    // longest backoff.
    c.advance_ms(etcd_client::RECONNECT_MAX_MS);
    assert_eq!(kubectl(&mut c, "get --raw /readyz"), ("ok".to_string(), Some(0)));
}

#[test]
fn without_etcd_quorum_the_etcd_check_times_out_after_two_seconds() {
    let config = ClusterConfig { etcd_members: 3, ..ClusterConfig::default() };
    let mut c = Cluster::new(config, 3);
    c.stop("etcd-1").unwrap();
    c.stop("etcd-2").unwrap();
    c.advance_ms(3_000);
    let started = c.now().ms();
    let (out, code) = kubectl(&mut c, "get --raw /healthz");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("[-]etcd failed: reason withheld\\n"), "{out}");
    assert!(out.ends_with("\\nhealthz check failed\") has prevented the request from succeeding\n"), "{out}");
    let waited = c.now().ms() - started;
    assert!((2_000..2_100).contains(&waited), "{waited} ms");
}

#[test]
fn get_raw_prints_api_paths_as_the_apiserver_encodes_them() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, CONFIGMAP);
    let (out, code) = kubectl(&mut c, "get --raw /api/v1/namespaces/default/configmaps/settings");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"), "{out}");
    assert!(out.ends_with("}\n") && out.lines().count() == 1, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["data"]["k"], "v");
    let (out, code) = kubectl(&mut c, "get --raw /api/v1/namespaces/default/configmaps");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.starts_with("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""),
        "{out}"
    );
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> =
        list["items"].as_array().unwrap().iter().filter_map(|i| i["metadata"]["name"].as_str()).collect();
    assert!(names.contains(&"settings"), "{out}");
    assert!(list["items"][0].get("kind").is_none(), "list items carry no kind: {out}");
    let (out, _) = kubectl(&mut c, "get --raw /apis/apps/v1/namespaces/kube-system/deployments/coredns");
    assert!(out.starts_with("{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\","), "{out}");
    assert_eq!(
        kubectl(&mut c, "get --raw /api/v1/namespaces/default/pods/nope"),
        ("Error from server (NotFound): pods \"nope\" not found\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "get --raw /nothing"),
        ("Error from server (NotFound): the server could not find the requested resource\n".to_string(), Some(1))
    );
    let (out, code) = kubectl(&mut c, "get --raw /version");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("{\n  \"major\": \"1\",\n  \"minor\": \"34\",\n"), "{out}");
    assert!(out.contains("\n  \"gitVersion\": \"v1.34.1\",\n") && out.ends_with("\"\n}"), "{out}");
}

#[test]
fn get_raw_refuses_arguments_output_formats_and_relative_paths_as_kubectl_does() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        kubectl(&mut c, "get pods --raw /livez"),
        ("error: arguments may not be passed when --raw is specified\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "get --raw /livez -o yaml"),
        ("error: --raw and --output are mutually exclusive\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "get --raw readyz"),
        ("error: --raw must be a valid URL path: parse \"readyz\": invalid URI for request\n".to_string(), Some(1))
    );
    c.stop("kube-apiserver").unwrap();
    assert_eq!(
        kubectl(&mut c, "get --raw /livez"),
        (
            "The connection to the server 192.168.56.10:6443 was refused - did you specify the right host or port?\n"
                .to_string(),
            Some(1)
        )
    );
}
