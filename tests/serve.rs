//! `kubeglass serve` judged by the real kubectl on this machine: a served cluster answers it over HTTPS with
//! the certificates and kubeconfig serve writes, and what it prints is what it prints against a real
//! apiserver (discovery, JSON bodies, Status errors, watches, writes, RBAC's 403).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `kubeglass serve` process on a free port, killed when dropped.
struct Served {
    child: Child,
    kubeconfig: String,
    /// `https://127.0.0.1:<port>`.
    server: String,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubeglass"))
            .args(["serve", "--port", "0", "--no-prompt", "--speed", "20"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kubeglass serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut server = String::new();
        let kubeconfig = loop {
            let line = lines.next().expect("serve prints its kubeconfig").unwrap();
            if let Some((_, url)) = line.split_once(" at ") {
                server = url.to_string();
            }
            if let Some(path) = line.strip_prefix("export KUBECONFIG=") {
                break path.to_string();
            }
        };
        // Keep reading what it prints, so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Served { child, kubeconfig, server }
    }

    /// Runs the real kubectl against the served cluster: (stdout, stderr, exit code).
    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> (String, String, i32) {
        let mut child = Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the real kubectl is on PATH");
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        let out = child.wait_with_output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// Runs kubectl until its output satisfies `done` (the cluster works at its own pace), 200 tries at most.
    fn kubectl_until(&self, args: &[&str], done: impl Fn(&str) -> bool) -> String {
        let mut out = String::new();
        for _ in 0..200 {
            out = self.kubectl(args, None).0;
            if done(&out) {
                break;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        out
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
";

#[test]
fn the_real_kubectl_discovers_and_reads_the_served_cluster() {
    let s = Served::start(&[]);
    let (out, _, code) = s.kubectl(&["version"], None);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Server Version: v1.34.1\n"), "{out}");
    let (out, err, code) = s.kubectl(&["get", "nodes", "-o", "name"], None);
    assert_eq!((out.as_str(), code), ("node/controlplane\nnode/node01\nnode/node02\n", 0), "{err}");
    let (out, _, _) = s.kubectl(&["get", "--raw", "/readyz?verbose"], None);
    assert!(out.contains("[+]etcd ok\n") && out.ends_with("readyz check passed\n"), "{out}");
    // Discovery lists what is served, subresources included.
    let (out, _, _) = s.kubectl(&["get", "--raw", "/apis/apps/v1"], None);
    assert!(out.contains("\"name\":\"deployments/scale\""), "{out}");
    let (out, _, _) = s.kubectl(&["api-resources", "--api-group=apps", "--no-headers", "-o", "name"], None);
    assert!(out.contains("deployments.apps\n") && out.contains("statefulsets.apps\n"), "{out}");
    // A Status body decodes into the error kubectl prints.
    let (_, err, code) = s.kubectl(&["get", "pod", "nope"], None);
    assert_eq!((err.as_str(), code), ("Error from server (NotFound): pods \"nope\" not found\n", 1));
    let (_, err, code) = s.kubectl(&["get", "deploy", "nope", "-n", "kube-system"], None);
    assert_eq!((err.as_str(), code), ("Error from server (NotFound): deployments.apps \"nope\" not found\n", 1));
    let (out, _, _) =
        s.kubectl(&["get", "pods", "-n", "kube-system", "-o", "jsonpath={.items[*].metadata.name}"], None);
    assert!(out.contains("kube-apiserver-controlplane") && out.contains("etcd-controlplane"), "{out}");
}

#[test]
fn the_real_kubectl_writes_and_watches_through_the_same_apiserver() {
    let s = Served::start(&[]);
    // Client-side validation reads OpenAPI, which is not served yet.
    let (out, err, code) = s.kubectl(&["apply", "--validate=false", "-f", "-"], Some(DEPLOYMENT));
    assert_eq!((out.as_str(), code), ("deployment.apps/web created\n", 0), "{err}");
    let pods = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], |o| o.lines().count() == 2);
    assert_eq!(pods.lines().count(), 2, "the Deployment's pods: {pods}");
    let (out, err, _) = s.kubectl(&["label", "deploy", "web", "tier=front"], None);
    assert_eq!(out, "deployment.apps/web labeled\n", "{err}");
    let (out, _, _) = s.kubectl(&["get", "deploy", "web", "-o", "jsonpath={.metadata.labels.tier}"], None);
    assert_eq!(out, "front");
    // A watch streams the changes a delete makes, and ends when kubectl gives up on it.
    let watcher = Command::new("kubectl")
        .args(["get", "pods", "-l", "app=web", "-w", "-o", "name", "--request-timeout=6s"])
        .env("KUBECONFIG", &s.kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let (out, err, code) = s.kubectl(&["delete", "deploy", "web"], None);
    assert_eq!((out.as_str(), code), ("deployment.apps \"web\" deleted\n", 0), "{err}");
    let watched = watcher.wait_with_output().unwrap();
    let watched = String::from_utf8_lossy(&watched.stdout);
    let first_pod = pods.lines().next().unwrap();
    assert!(
        watched.lines().filter(|l| *l == first_pod).count() >= 2,
        "the watch lists the pod, then its change: {watched}"
    );
    let gone = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], str::is_empty);
    assert_eq!(gone, "", "the garbage collector removes the pods");
}

#[test]
fn a_user_without_rights_gets_the_real_403_and_a_stranger_the_real_401() {
    let s = Served::start(&["--user", "alice:dev"]);
    let (_, err, code) = s.kubectl(&["--context", "alice@kubernetes", "get", "pods"], None);
    assert_eq!(
        (err.as_str(), code),
        (
            "Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n",
            1
        )
    );
    // A token nobody issued, from a client configured by flags alone.
    let ca = std::path::Path::new(&s.kubeconfig).with_file_name("ca.crt");
    let ca = format!("--certificate-authority={}", ca.display());
    let server = format!("--server={}", s.server);
    let (_, err, code) =
        s.kubectl(&["--kubeconfig=/dev/null", &server, &ca, "--token=not-a-token", "get", "pods"], None);
    assert_eq!((code, err.as_str()), (1, "error: You must be logged in to the server (Unauthorized)\n"));
}
