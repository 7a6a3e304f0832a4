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
        let mut args = vec!["--no-prompt", "--speed", "20"];
        args.extend_from_slice(extra);
        Served::spawn(&args).0
    }

    /// A served cluster with its control prompt on a pipe, and the lines it prints.
    fn spawn(args: &[&str]) -> (Served, Option<Prompt>) {
        let prompted = !args.contains(&"--no-prompt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubeglass"))
            .args(["serve", "--port", "0"])
            .args(args)
            .stdin(if prompted { Stdio::piped() } else { Stdio::null() })
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
        let (sender, printed) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let prompt = child.stdin.take().map(|stdin| Prompt { stdin, printed });
        (Served { child, kubeconfig, server }, prompt)
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

    /// Runs kubectl binary `bin` with stdout and stderr on one pipe, as a terminal interleaves them: (what
    /// it printed, exit code). Its discovery cache is this served cluster's own.
    fn kubectl_merged(&self, bin: &std::path::Path, args: &[&str], stdin: Option<&str>) -> (String, i32) {
        let cache = std::path::Path::new(&self.kubeconfig).with_file_name("kubectl-cache");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 2>&1")
            .arg(bin)
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBECACHEDIR", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the real kubectl runs");
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        let out = child.wait_with_output().unwrap();
        (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
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

/// serve's control prompt.
struct Prompt {
    stdin: std::process::ChildStdin,
    printed: std::sync::mpsc::Receiver<String>,
}

impl Prompt {
    /// Runs a prompt line and returns what it printed (the prompts, `kubeglass> ` and a node shell's
    /// `root@node:~# `, taken off).
    fn run(&mut self, line: &str) -> String {
        const MARK: &str = "--- end of output ---";
        writeln!(self.stdin, "{line}\necho {MARK}").unwrap();
        let mut out = String::new();
        loop {
            let printed = self.printed.recv_timeout(Duration::from_secs(60)).expect("the prompt answers");
            let mut text = printed.as_str();
            loop {
                if let Some(rest) = text.strip_prefix("kubeglass> ") {
                    text = rest;
                } else if let Some(rest) = text.strip_prefix("> ") {
                    // A here-document's continuation prompts.
                    text = rest;
                } else if let Some((_, rest)) = text.split_once(":~# ").filter(|_| text.starts_with("root@")) {
                    text = rest;
                } else {
                    break;
                }
            }
            // Output without a final newline (`get --raw /healthz`'s `ok`) runs into the next prompt's line.
            if let Some(rest) = text.strip_suffix(MARK) {
                out.push_str(rest.strip_suffix("kubeglass> ").unwrap_or(rest));
                return out;
            }
            out.push_str(text);
            out.push('\n');
        }
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
    // kubectl finds in the served OpenAPI that the server validates fields itself (fieldValidation=Strict).
    let (out, err, code) = s.kubectl(&["apply", "-f", "-"], Some(DEPLOYMENT));
    assert_eq!((out.as_str(), code), ("deployment.apps/web created\n", 0), "{err}");
    let pods = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], |o| o.lines().count() == 2);
    assert_eq!(pods.lines().count(), 2, "the Deployment's pods: {pods}");
    let (out, err, _) = s.kubectl(&["label", "deploy", "web", "tier=front"], None);
    assert_eq!(out, "deployment.apps/web labeled\n", "{err}");
    let (out, _, _) = s.kubectl(&["get", "deploy", "web", "-o", "jsonpath={.metadata.labels.tier}"], None);
    assert_eq!(out, "front");
    // The scale subresource answers with an autoscaling/v1 Scale, which kubectl scale decodes.
    let (out, err, code) = s.kubectl(&["scale", "deploy", "web", "--replicas=3"], None);
    assert_eq!((out.as_str(), code), ("deployment.apps/web scaled\n", 0), "{err}");
    let (out, _, _) = s.kubectl(&["get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"], None);
    let scale: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&scale["kind"], &scale["apiVersion"], &scale["spec"]["replicas"]),
        (&"Scale".into(), &"autoscaling/v1".into(), &3.into())
    );
    assert_eq!(scale["status"]["selector"], "app=web");
    let (_, err, code) = s.kubectl(&["scale", "deploy", "web", "--current-replicas=2", "--replicas=1"], None);
    assert_eq!((err.as_str(), code), ("error: Expected replicas to be 2, was 3\n", 1));
    let three = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], |o| o.lines().count() == 3);
    assert_eq!(three.lines().count(), 3, "{three}");
    // A watch streams the changes a delete makes, and ends when kubectl gives up on it.
    let mut watcher = Command::new("kubectl")
        .args(["get", "pods", "-l", "app=web", "-w", "-o", "name", "--request-timeout=6s"])
        .env("KUBECONFIG", &s.kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The delete comes once the watch has listed the three pods, so its events are certain to be watched.
    let mut watched_lines = BufReader::new(watcher.stdout.take().unwrap()).lines();
    let mut watched = String::new();
    while watched.lines().count() < 3 {
        let Some(Ok(line)) = watched_lines.next() else { break };
        watched.push_str(&line);
        watched.push('\n');
    }
    let (out, err, code) = s.kubectl(&["delete", "deploy", "web"], None);
    assert_eq!((out.as_str(), code), ("deployment.apps \"web\" deleted\n", 0), "{err}");
    for line in watched_lines.map_while(Result::ok) {
        watched.push_str(&line);
        watched.push('\n');
    }
    let _ = watcher.wait();
    let first_pod = pods.lines().next().unwrap();
    assert!(
        watched.lines().filter(|l| *l == first_pod).count() >= 2,
        "the watch lists the pod, then its change: {watched}"
    );
    let gone = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], str::is_empty);
    assert_eq!(gone, "", "the garbage collector removes the pods");
}

#[test]
fn the_real_kubectls_typed_clients_write_in_protobuf() {
    // `kubectl create deployment|job|secret|configmap`, `auth whoami|can-i` and `drain` go through client-go's
    // typed clients, which send their bodies as application/vnd.kubernetes.protobuf.
    let (s, prompt) = Served::spawn(&["--speed", "20"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    let (out, err, code) = s.kubectl(&["create", "deployment", "web", "--image=nginx", "--replicas=2", "-v=8"], None);
    assert_eq!((out.as_str(), code), ("deployment.apps/web created\n", 0), "{err}");
    assert!(err.contains("Content-Type: application/vnd.kubernetes.protobuf"), "sent as protobuf: {err}");
    assert!(err.contains("Response Status: 201 Created"), "a create answers 201: {err}");
    let spec = "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.selector.matchLabels}";
    let (out, _, _) = s.kubectl(&["get", "deploy", "web", "-o", spec], None);
    assert_eq!(out, "2 nginx {\"app\":\"web\"}");

    let (out, err, _) = s.kubectl(&["create", "job", "pi", "--image=busybox", "--", "echo", "hi"], None);
    assert_eq!(out, "job.batch/pi created\n", "{err}");
    let (out, _, _) =
        s.kubectl(&["get", "job", "pi", "-o", "jsonpath={.spec.template.spec.containers[0].command}"], None);
    assert_eq!(out, "[\"echo\",\"hi\"]");
    let (out, err, _) = s.kubectl(&["create", "secret", "generic", "db", "--from-literal=password=s3cret"], None);
    assert_eq!(out, "secret/db created\n", "{err}");
    let (out, _, _) = s.kubectl(&["get", "secret", "db", "-o", "jsonpath={.data.password} {.type}"], None);
    assert_eq!(out, "czNjcmV0 Opaque");
    let (out, err, _) = s.kubectl(&["create", "configmap", "cfg", "--from-literal=mode=fast"], None);
    assert_eq!(out, "configmap/cfg created\n", "{err}");
    let (out, _, _) = s.kubectl(&["get", "cm", "cfg", "-o", "jsonpath={.data.mode}"], None);
    assert_eq!(out, "fast");

    // SelfSubjectReview and SelfSubjectAccessReview: what the real kubectl prints is what the simulated one does.
    let (out, err, code) = s.kubectl(&["auth", "whoami"], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, prompt.run("kubectl auth whoami"));
    assert!(out.contains("kubernetes-admin"), "{out}");
    let (out, _, code) = s.kubectl(&["auth", "can-i", "create", "pods"], None);
    assert_eq!((out.as_str(), code), ("yes\n", 0));
    let (out, _, code) =
        s.kubectl(&["auth", "can-i", "list", "secrets", "--as=system:serviceaccount:default:default"], None);
    assert_eq!((out.as_str(), code), ("no\n", 1));

    // drain evicts through the eviction subresource (a protobuf Eviction with its DeleteOptions).
    let pods = s.kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name"], |o| o.lines().count() == 2);
    assert_eq!(pods.lines().count(), 2, "{pods}");
    let (out, err, code) = s.kubectl(&["drain", "node01", "--ignore-daemonsets", "--timeout=60s"], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("node/node01 cordoned\n") && out.ends_with("node/node01 drained\n"), "{out}");
    assert!(err.starts_with("Warning: ignoring DaemonSet-managed Pods: kube-system/kube-proxy-"), "{err}");
    let (left, _, _) =
        s.kubectl(&["get", "pods", "-A", "--field-selector", "spec.nodeName=node01", "-o", "name"], None);
    assert_eq!(left.lines().filter(|p| !p.starts_with("pod/kube-proxy-")).count(), 0, "{left}");
    // Deleting instead of evicting sends protobuf DeleteOptions with the grace period.
    let (out, err, code) =
        s.kubectl(&["drain", "node02", "--ignore-daemonsets", "--disable-eviction", "--grace-period=0"], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("node/node02 drained\n"), "{out}");
}

#[test]
fn the_real_kubectl_execs_over_websocket_with_stdin_and_a_terminal() {
    let (s, prompt) = Served::spawn(&["--speed", "20"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    let (_, err, _) = s.kubectl(&["create", "deployment", "web", "--image=nginx"], None);
    let pod = s
        .kubectl_until(&["get", "pods", "-l", "app=web", "-o", "name", "--field-selector=status.phase=Running"], |o| {
            o.lines().count() == 1
        });
    let pod = pod.trim().to_string();
    assert!(pod.starts_with("pod/web-"), "{pod} {err}");
    // Each line: the real kubectl's stdout and stderr, then the simulated kubectl's, which must agree.
    let lines: [&[&str]; 4] = [
        &["exec", &pod, "--", "cat", "/etc/hostname"],
        &["exec", &pod, "--", "sh", "-c", "echo out; echo err >&2; exit 3"],
        &["exec", &pod, "-c", "nope", "--", "ls"],
        &["exec", &pod, "--", "nosuchcmd"],
    ];
    for args in lines {
        let (out, err, code) = s.kubectl(args, None);
        let simulated = prompt.run(&format!("kubectl {}", shell_words(args)));
        // Every exec has its own id, as in containerd: the two runs name two different ones.
        assert_eq!(
            without_exec_ids(&format!("{out}{err}")),
            without_exec_ids(&simulated),
            "kubectl {args:?} (exit {code})"
        );
        let expected_code = match args[3] {
            "cat" => 0,
            "sh" => 3,
            _ => 1,
        };
        assert_eq!(code, expected_code, "kubectl {args:?}: {out}{err}");
    }
    let name = pod.trim_start_matches("pod/");
    let (out, _, _) = s.kubectl(&["exec", &pod, "--", "cat", "/etc/hostname"], None);
    assert_eq!(out, format!("{name}\n"));
    let (out, err, _) = s.kubectl(&["exec", &pod, "--", "sh", "-c", "echo out; echo err >&2; exit 3"], None);
    assert_eq!((out.as_str(), err.as_str()), ("out\n", "err\ncommand terminated with exit code 3\n"));
    // stdin to its end (v5's close signal), then the command.
    let (out, err, code) = s.kubectl(&["exec", "-i", &pod, "--", "cat"], Some("hello\nworld\n"));
    assert_eq!((out.as_str(), code), ("hello\nworld\n", 0), "{err}");
    let (out, err, code) = s.kubectl(&["exec", "-i", &pod, "--", "sh"], Some("echo one\nexit 4\n"));
    assert_eq!((out.as_str(), err.as_str(), code), ("one\n", "command terminated with exit code 4\n", 4));
    // A terminal: typed keys echoed (backspace too), each line run, `exit 5` ends it with its code.
    let tty = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/kubectl_tty.py"))
        .args(["# ", "exec", "-it", &pod, "--", "sh", "::", "hostnamx\u{7f}e", "echo $HOME", "exit 5"])
        .env("KUBECONFIG", &s.kubeconfig)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&tty.stdout);
    let expected = format!(
        "'# hostnamx\\x08 \\x08e\\r\\n{name}\\r\\n# echo $HOME\\r\\n/root\\r\\n# exit 5\\r\\ncommand terminated with exit code 5\\r\\n'\n5\n"
    );
    assert_eq!(shown, expected, "{}", String::from_utf8_lossy(&tty.stderr));
    // The CKA line: a throwaway busybox fetches a Service by name through CoreDNS and kube-proxy's rules.
    s.kubectl(&["create", "deployment", "web", "--image=nginx"], None);
    s.kubectl(&["expose", "deployment", "web", "--port=80"], None);
    s.kubectl_until(&["get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "name"], |o| {
        !o.is_empty()
    });
    s.kubectl_until(&["get", "pods", "-l", "app=web", "--no-headers"], |o| o.contains("Running"));
    let (out, err, code) = s.kubectl(
        &["run", "fetch", "--rm", "-i", "--restart=Never", "--image=busybox", "--", "wget", "-qO-", "web"],
        None,
    );
    assert!(out.starts_with("<!DOCTYPE html>") && out.contains("<title>Welcome to nginx!</title>"), "{out}{err}");
    assert!(out.ends_with("</html>\npod \"fetch\" deleted\n"), "{out}{err}");
    assert_eq!(code, 0, "{err}");
    let tty = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/kubectl_tty.py"))
        .args(["", "run", "tmp", "--rm", "-it", "--image=busybox", "--", "wget", "-qO-", "web", "::"])
        .env("KUBECONFIG", &s.kubeconfig)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(shown.contains("<title>Welcome to nginx!</title>\\r\\n"), "{shown}");
    assert!(shown.ends_with("</html>\\r\\npod \"tmp\" deleted\\r\\n'\n0\n"), "{shown}");
}

#[test]
fn the_real_kubectl_runs_attached_pods_and_attaches_over_websocket() {
    let s = Served::start(&[]);
    // stdin piped to the pod's shell; --rm deletes it once the shell has ended with the input.
    let (out, err, code) =
        s.kubectl(&["run", "t", "--rm", "-i", "--image=busybox", "--", "sh"], Some("echo hello\nhostname\nexit 0\n"));
    assert_eq!((out.as_str(), code), ("hello\nt\npod \"t\" deleted\n", 0), "{err}");
    assert!(err.ends_with("If you don't see a command prompt, try pressing enter.\n"), "{err}");
    // A Never pod that fails ends kubectl with its exit code.
    let (out, err, code) =
        s.kubectl(&["run", "f", "-i", "--restart=Never", "--image=busybox", "--", "sh"], Some("echo bye\nexit 3\n"));
    assert_eq!((out.as_str(), code), ("bye\n", 3), "{err}");
    assert!(err.ends_with("pod default/f terminated (Error)\n"), "{err}");
    // Attached without stdin: the output until the process ends.
    s.kubectl(&["run", "late", "--image=busybox", "--", "sh", "-c", "sleep 30; echo done; sleep 1"], None);
    s.kubectl_until(&["get", "pod", "late", "--no-headers"], |o| o.contains("Running"));
    let (out, err, code) = s.kubectl(&["attach", "late"], None);
    assert_eq!((out.as_str(), code), ("done\n", 0), "{err}");
    // A terminal: Enter shows the prompt the shell printed before kubectl attached, each line is echoed
    // once, and `exit` ends the session; the pod restarts (`Always`), so kubectl says how to attach again
    // before --rm deletes it.
    let tty = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/kubectl_tty.py"))
        .args(["/ # ", "run", "tt", "--rm", "-it", "--image=busybox", "--", "sh", "::", "", "echo hi", "exit"])
        .env("KUBECONFIG", &s.kubeconfig)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&tty.stdout);
    let expected = "'If you don\\'t see a command prompt, try pressing enter.\\r\\n\\r\\n/ # echo hi\\r\\nhi\\r\\n/ # exit\\r\\nSession ended, resume using \\'kubectl attach tt -c tt -i -t\\' command when the pod is running\\r\\npod \"tt\" deleted\\r\\n'\n0\n";
    assert_eq!(shown, expected, "{}", String::from_utf8_lossy(&tty.stderr));
}

/// `kubectl.VERSION` beside the binary `kubectl` resolves to, when this machine has it.
fn older_kubectl(version: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    let kubectl = std::env::split_paths(&path).map(|d| d.join("kubectl")).find(|p| p.exists())?;
    let beside = std::fs::canonicalize(kubectl).ok()?.with_file_name(format!("kubectl.{version}"));
    beside.exists().then_some(beside)
}

/// Text with containerd's exec ids (`failed to start exec "<64 hex digits>"`) masked.
fn without_exec_ids(text: &str) -> String {
    const MARK: &str = "failed to start exec \"";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let (head, tail) = rest.split_at(at + MARK.len());
        out.push_str(head);
        let id_len = tail.chars().take_while(char::is_ascii_hexdigit).count();
        out.push_str("<id>");
        rest = &tail[id_len..];
    }
    out.push_str(rest);
    out
}

/// Command-line words as the prompt reads them back (quoted when they hold a space).
fn shell_words(args: &[&str]) -> String {
    let quoted: Vec<String> =
        args.iter().map(|a| if a.contains(' ') { format!("'{a}'") } else { a.to_string() }).collect();
    quoted.join(" ")
}

#[test]
fn the_real_kubectl_reads_lists_in_pages_from_one_revision() {
    let (s, prompt) = Served::spawn(&["--paused"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    assert_eq!(prompt.run("wait 15m"), "");
    // Pages of two, each request after the first naming the token of the page before: the same table.
    let (whole, _, _) = s.kubectl(&["get", "pods", "-A"], None);
    let (paged, log, code) = s.kubectl(&["get", "pods", "-A", "--chunk-size=2", "-v=6"], None);
    assert_eq!((paged.as_str(), code), (whole.as_str(), 0));
    let pages = log.lines().filter(|l| l.contains("GET https://") && l.contains("/api/v1/pods?")).count();
    let pods = whole.lines().count() - 1;
    assert_eq!(pages, pods.div_ceil(2), "{log}");
    assert!(log.contains("/api/v1/pods?continue="), "{log}");
    let page = |query: &str| -> serde_json::Value {
        let (out, err, _) = s.kubectl(&["get", "--raw", &format!("/api/v1/pods?{query}")], None);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
    };
    let first = page("limit=2");
    assert_eq!(first["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(first["metadata"]["remainingItemCount"], pods as u64 - 2);
    let token = first["metadata"]["continue"].as_str().unwrap().to_string();
    // Objects created after the first page do not show up in its later pages.
    let (_, err, _) = s.kubectl(&["run", "aaa-late", "--image=nginx", "-n", "kube-system"], None);
    let mut names: Vec<String> = Vec::new();
    let mut next = Some(token.clone());
    while let Some(t) = next {
        let p = page(&format!("limit=2&continue={t}"));
        assert_eq!(p["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"], "{err}");
        names
            .extend(p["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()));
        next = p["metadata"]["continue"].as_str().map(str::to_string);
        // A later page counts what is left after it too (at the first page's revision).
        if next.is_some() {
            assert_eq!(p["metadata"]["remainingItemCount"], (pods - 2 - names.len()) as u64, "{p}");
        }
    }
    assert_eq!(names.len(), pods - 2, "{names:?}");
    assert!(!names.contains(&"aaa-late".to_string()));
    // With a selector the rest cannot be counted; a broken token and a token with a resourceVersion are refused.
    let selected = page("limit=1&labelSelector=tier%3Dcontrol-plane");
    assert!(selected["metadata"]["continue"].is_string() && selected["metadata"].get("remainingItemCount").is_none());
    let (_, err, _) = s.kubectl(&["get", "--raw", &format!("/api/v1/pods?continue={token}&resourceVersion=5")], None);
    assert_eq!(err, "Error from server (BadRequest): specifying resource version is not allowed when using continue\n");
    // Once etcd has been compacted past the token's revision (every 5 minutes), the token has expired.
    assert_eq!(prompt.run("wait 11m"), "");
    let (_, err, code) = s.kubectl(&["get", "--raw", &format!("/api/v1/pods?limit=2&continue={token}")], None);
    assert_eq!(code, 1);
    assert!(err.starts_with("Error from server (Expired): The provided continue parameter is too old"), "{err}");
}

#[test]
fn the_real_kubectl_follows_a_log_as_it_is_written() {
    let s = Served::start(&["--speed", "5"]);
    let pod = "apiVersion: v1
kind: Pod
metadata:
  name: steps
spec:
  restartPolicy: Never
  containers:
  - name: steps
    image: busybox
    command: [sh, -c, 'echo a; sleep 10; echo b; sleep 10; echo c']
";
    let (_, err, code) = s.kubectl(&["apply", "-f", "-"], Some(pod));
    assert_eq!(code, 0, "{err}");
    let so_far = s.kubectl_until(&["logs", "steps"], |o| !o.is_empty());
    assert_eq!(so_far, "a\n", "the container has written only its first line");
    // The rest arrives on the open stream; kubectl ends when the container exits.
    let (out, err, code) = s.kubectl(&["logs", "-f", "steps"], None);
    assert_eq!((out.as_str(), code), ("a\nb\nc\n", 0), "{err}");
}

#[test]
fn a_watch_with_timeout_seconds_is_ended_by_the_server() {
    let (s, prompt) = Served::spawn(&["--paused"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    assert_eq!(prompt.run("wait 15m"), "", "past the install's changes");
    // The paused clock moves only while a request waits for an answer: a watch's first answer comes at
    // once, so the watch is ended when `wait` moves the clock past its timeoutSeconds.
    let mut watch = Command::new("kubectl")
        .args(["get", "--raw", "/api/v1/namespaces/kube-system/pods?watch=1&timeoutSeconds=30"])
        .env("KUBECONFIG", &s.kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let first = lines.next().expect("the watch lists the pods as ADDED events").unwrap();
    assert!(first.starts_with("{\"type\":\"ADDED\""), "{first}");
    assert_eq!(prompt.run("wait 10s"), "");
    assert_eq!(watch.try_wait().unwrap(), None, "10 s in, the watch is still open");
    assert_eq!(prompt.run("wait 25s"), "");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = watch.wait().unwrap();
    assert!(status.success(), "the server ended the response cleanly");
    let kinds: Vec<&str> = rest.iter().map(|l| l.get(..16).unwrap_or(l)).collect();
    assert!(rest.iter().all(|l| l.starts_with("{\"type\":\"ADDED\"")), "{kinds:?}");
}

#[test]
fn discovery_is_aggregated_for_new_clients_and_legacy_for_old_ones() {
    let s = Served::start(&[]);
    let cache = std::env::temp_dir().join(format!("kubeglass-discovery-{}", std::process::id()));
    let dir = |name: &str| format!("--cache-dir={}", cache.join(name).display());
    // kubectl 1.32 asks /api and /apis for apidiscovery.k8s.io/v2 and needs nothing else.
    let (aggregated, log, code) = s.kubectl(&["api-resources", &dir("new"), "-v=6"], None);
    assert_eq!(code, 0, "{log}");
    let gets: Vec<&str> = log.lines().filter_map(|l| l.split_once("GET https://").map(|(_, r)| r)).collect();
    assert_eq!(gets.len(), 2, "{gets:#?}");
    assert!(gets[0].contains("/api?") && gets[1].contains("/apis?"), "{gets:#?}");
    // kubectl 1.29 asks for v2beta1, which a v1.34 apiserver no longer serves: it reads every legacy
    // group-version document, and lists the same resources.
    // (The versioned kubectls stand beside the one `kubectl` links to on this machine; a machine without
    // them judges with the newest only.)
    match older_kubectl("1.29") {
        Some(bin) => {
            let old = Command::new(&bin)
                .args(["api-resources", &dir("old"), "-v=6"])
                .env("KUBECONFIG", &s.kubeconfig)
                .output()
                .unwrap();
            let old_log = String::from_utf8_lossy(&old.stderr);
            assert_eq!(String::from_utf8_lossy(&old.stdout), aggregated);
            assert!(old_log.lines().filter(|l| l.contains("GET https://")).count() > 10, "{old_log}");
        }
        None => eprintln!("kubectl.1.29 is not on this machine: the legacy half is not judged"),
    }
    // The list carries an ETag; asked again with it, the apiserver answers 304.
    let answers = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/aggregated_discovery.py"))
        .env("KUBECONFIG", &s.kubeconfig)
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&answers.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "{}", String::from_utf8_lossy(&answers.stderr));
    for pair in lines.chunks(2) {
        assert_eq!(pair[0]["status"], 200);
        assert_eq!(pair[0]["type"], "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        assert_eq!(pair[1]["status"], 304);
        assert_eq!(pair[0]["etag"], pair[1]["etag"]);
    }
    assert_eq!(lines[0]["pods"]["scope"], "Namespaced");
    assert_eq!(lines[0]["pods"]["responseKind"], serde_json::json!({"group": "", "version": "v1", "kind": "Pod"}));
    let subresources: Vec<&str> =
        lines[0]["pods"]["subresources"].as_array().unwrap().iter().filter_map(|s| s["subresource"].as_str()).collect();
    assert_eq!(
        subresources,
        ["attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "status"]
    );
    assert!(lines[2]["groups"].as_array().unwrap().iter().any(|g| g == "apps"));
    let _ = std::fs::remove_dir_all(&cache);
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

#[test]
fn a_token_the_real_kubectl_creates_authenticates_its_service_account_until_it_expires_or_the_account_goes() {
    let (s, prompt) = Served::spawn(&["--paused"]);
    let mut prompt = prompt.expect("a control prompt");
    let ca = std::path::Path::new(&s.kubeconfig).with_file_name("ca.crt");
    let ca = format!("--certificate-authority={}", ca.display());
    let server = format!("--server={}", s.server);
    let as_token = |token: &str, args: &[&str]| {
        let token = format!("--token={token}");
        let mut all = vec!["--kubeconfig=/dev/null", server.as_str(), ca.as_str(), token.as_str()];
        all.extend_from_slice(args);
        let (out, err, code) = s.kubectl(&all, None);
        (out + &err, code)
    };
    assert_eq!(s.kubectl(&["create", "sa", "robot"], None).2, 0);
    let (token, err, code) = s.kubectl(&["create", "token", "robot", "--duration=10m"], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(token.split('.').count(), 3, "a JWT, without a newline off a terminal: {token}");
    let (who, code) = as_token(&token, &["auth", "whoami"]);
    assert_eq!(code, 0);
    // The table's rows, attribute → value (its first column is as wide as its longest attribute).
    let row = |attribute: &str| {
        who.lines()
            .find_map(|l| l.strip_prefix(attribute).filter(|r| r.starts_with("  ")).map(|r| r.trim().to_string()))
    };
    assert_eq!(row("Username").as_deref(), Some("system:serviceaccount:default:robot"), "{who}");
    assert_eq!(
        row("Groups").as_deref(),
        Some("[system:serviceaccounts system:serviceaccounts:default system:authenticated]"),
        "{who}"
    );
    // The service account token authenticator's UID and extra: the account's UID and the token's ID.
    let (uid, _, _) = s.kubectl(&["get", "sa", "robot", "-o", "jsonpath={.metadata.uid}"], None);
    assert_eq!(row("UID"), Some(uid), "{who}");
    assert!(row("Extra: authentication.kubernetes.io/credential-id").is_some_and(|v| v.starts_with("[JTI=")), "{who}");
    let (jti, code) = as_token(&token, &["auth", "whoami", "-o", "jsonpath={.status.userInfo.extra}"]);
    assert_eq!(code, 0);
    assert!(jti.starts_with("{\"authentication.kubernetes.io/credential-id\":[\"JTI="), "{jti}");
    assert_eq!(
        as_token(&token, &["get", "pods"]),
        (
            "Error from server (Forbidden): pods is forbidden: User \"system:serviceaccount:default:robot\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n".into(),
            1
        )
    );
    assert_eq!(
        s.kubectl(&["create", "rolebinding", "r", "--clusterrole=view", "--serviceaccount=default:robot"], None).2,
        0
    );
    assert_eq!(
        as_token(&token, &["get", "sa", "-o", "name"]),
        ("serviceaccount/default\nserviceaccount/robot\n".into(), 0)
    );
    // A token signed for 10 minutes is refused once they have passed.
    prompt.run("wait 10m");
    let unauthorized = ("error: You must be logged in to the server (Unauthorized)\n".to_string(), 1);
    assert_eq!(as_token(&token, &["get", "sa", "-o", "name"]), unauthorized);
    // A fresh one works until its service account is deleted; a tampered one never.
    let (fresh, _, _) = s.kubectl(&["create", "token", "robot"], None);
    assert_eq!(as_token(&fresh, &["get", "sa", "robot", "-o", "name"]), ("serviceaccount/robot\n".into(), 0));
    assert_eq!(as_token(&format!("{fresh}x"), &["get", "sa", "-o", "name"]), unauthorized);
    assert_eq!(s.kubectl(&["delete", "sa", "robot"], None).2, 0);
    assert_eq!(as_token(&fresh, &["get", "sa", "-o", "name"]), unauthorized);
    // The errors kubectl and the TokenRequest storage give.
    let (_, err, code) = s.kubectl(&["create", "token", "nope"], None);
    assert_eq!((err.as_str(), code), ("error: failed to create token: serviceaccounts \"nope\" not found\n", 1));
    let (_, err, _) = s.kubectl(&["create", "token", "default", "--duration=5m"], None);
    assert_eq!(
        err,
        "error: failed to create token: TokenRequest.authentication.k8s.io \"default\" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes\n"
    );
}

#[test]
fn the_real_kubectl_prints_what_the_simulated_one_prints() {
    judge(&[
        "get nodes",
        "get nodes -o wide",
        "get pods -A",
        "get pods -n kube-system -o wide",
        "get pods -n kube-system --show-labels",
        "get svc,deploy -A",
        "get deploy -n kube-system -L k8s-app",
        "get ns",
        "get ds -A -o wide",
        "get pod nope",
        "get deploy nope -n kube-system",
        "get pods -A --chunk-size=3",
        "get cm -A",
        "get sa,secrets -A",
        "get roles,rolebindings -A",
        "get endpointslices -A",
        "get leases -A",
        "get pc,sc",
        "get all -A",
        "get ns default -o json",
        "get pods -A -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName",
        "get pods -A --sort-by=.metadata.name",
        "get nodes -l node-role.kubernetes.io/control-plane",
        "get deploy -A -o wide",
        "get ds kube-proxy -n kube-system -o yaml",
        "describe svc kubernetes",
        "api-versions",
        "auth can-i --list",
        "get pods -A -o name --chunk-size=0",
        "get pods --chunk-size=abc",
        "api-resources",
        "api-resources -o wide",
        "api-resources --api-group=storage.k8s.io -o name",
        "api-resources --namespaced=false --sort-by=kind --no-headers",
        "api-resources --verbs=get,list --categories=all",
        "get rc,podtemplates -A",
        "get csr,crd,ingressclass,runtimeclass",
        "get cs scheduler",
        "get cs nope",
        "get subjectaccessreviews",
        "get bindings",
        "get apiservices",
        "get apiservice v1. -o yaml",
        "get flowschemas",
        "get prioritylevelconfigurations",
        "get servicecidrs",
    ]);
}

#[test]
fn the_real_kubectl_prints_what_the_simulated_one_prints_for_every_kind_and_error() {
    judge(WIDE_CORPUS);
}

/// Runs each line through the real kubectl outside and the simulated one inside one paused cluster and
/// compares what a terminal shows.
fn judge(lines: &[&str]) {
    // One cluster, its clock paused (it moves only while a request waits for its answer): the real kubectl
    // outside and the simulated one inside read the same apiserver at the same moment, so the tables the
    // apiserver prints must come out the same, ages included.
    let (s, prompt) = Served::spawn(&["--paused"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    judge_on(&s, &mut prompt, lines);
}

/// [`judge`] on a served cluster already set up.
fn judge_on(s: &Served, prompt: &mut Prompt, lines: &[&str]) {
    // Past the install's last changes, and far enough that ages print in whole minutes: the few
    // milliseconds the clock moves for each request never change what either prints.
    assert_eq!(prompt.run("wait 15m"), "");
    for line in lines {
        let args: Vec<&str> = line.split_whitespace().collect();
        let (out, err, _) = s.kubectl(&args, None);
        let simulated = prompt.run(&format!("kubectl {line}"));
        assert_eq!(one_terminal(&out, &err), simulated, "kubectl {line}");
    }
}

/// stdout and stderr as one terminal shows them: the server's warnings, which kubectl writes to stderr as
/// the response arrives, before the output; other errors after it (the only normalisation: two streams
/// captured apart, one transcript in the simulation).
fn one_terminal(out: &str, err: &str) -> String {
    let (warnings, rest): (Vec<&str>, Vec<&str>) = err.split_inclusive('\n').partition(|l| l.starts_with("Warning: "));
    format!("{}{out}{}", warnings.concat(), rest.concat())
}

#[test]
fn the_real_kubectl_and_the_simulated_one_agree_on_custom_resources() {
    let (s, prompt) = Served::spawn(&["--paused"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    let (out, err, _) = s.kubectl(&["apply", "-f", "-"], Some(crate::custom_resources::CRONTAB_CRD));
    assert_eq!(out, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n", "{err}");
    prompt.run("wait 1s");
    let (out, err, _) = s.kubectl(&["apply", "-f", "-"], Some(crate::custom_resources::CRONTAB));
    assert_eq!(out, "crontab.stable.example.com/my-new-cron-object created\n", "{err}");
    let labelled = crate::custom_resources::CRONTAB
        .replace("name: my-new-cron-object", "name: nightly\n  namespace: kube-system\n  labels: {tier: batch}")
        .replace("image: my-awesome-cron-image", "image: busybox\n  replicas: 2");
    let (_, err, code) = s.kubectl(&["create", "-f", "-"], Some(&labelled));
    assert_eq!(code, 0, "{err}");
    judge_on(
        &s,
        &mut prompt,
        &[
            "get crd",
            "get crontabs",
            "get ct -A",
            "get ct -A -o wide --show-labels",
            "get ct -n kube-system -L tier",
            "get ct my-new-cron-object -o yaml",
            "get ct -A -o json",
            "get ct -A -o name",
            "get crontabs.stable.example.com",
            "get crontabs.v1.stable.example.com -n kube-system",
            "get ct nope",
            "get ct,deploy -n kube-system",
            "get ct -l tier=batch -A",
            "get ct -A --sort-by=.spec.replicas",
            "get ct -A -o custom-columns=NAME:.metadata.name,SPEC:.spec.cronSpec",
            "describe ct my-new-cron-object",
            "describe ct -n kube-system",
            "api-resources",
            "api-resources --api-group=stable.example.com -o wide",
            "api-versions",
            "get crd crontabs.stable.example.com -o yaml",
            "get --raw /apis/stable.example.com/v1",
            "get --raw /apis/stable.example.com",
            "get --raw /apis/stable.example.com/v1/namespaces/default/crontabs/my-new-cron-object/scale",
            "get --raw /apis/stable.example.com/v1/namespaces/kube-system/crontabs/nope",
            "get --raw /apis/stable.example.com/v1/widgets",
            "delete ct nope",
            "get ct my-new-cron-object -o jsonpath={.spec}",
            "explain crontab",
            "explain ct.spec",
            "explain ct.spec.replicas",
            "explain crontabs.stable.example.com.spec.cronSpec",
            "explain ct --recursive",
            "explain ct.metadata.labels",
            "explain ct.metadata.ownerReferences",
            "explain ct.spec.nope",
            "explain ct --api-version=stable.example.com/v2",
        ],
    );
}

#[test]
fn a_stopped_apiserver_refuses_the_real_kubectl_and_the_pods_keep_running() {
    // The seeds' first trap, with the person's own kubectl: kube-apiserver stopped is a refused connection,
    // not a broken cluster; the containers run on, and once it is back everything answers again.
    let (s, prompt) = Served::spawn(&["--speed", "20"]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    prompt.run("echo ready");
    assert_eq!(prompt.run("stop kube-apiserver"), "");
    let port = s.server.rsplit(':').next().unwrap().to_string();
    let (out, err, code) = s.kubectl(&["get", "pods", "-n", "kube-system"], None);
    let refused =
        format!("The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?");
    assert_eq!((out.as_str(), err.lines().last(), code), ("", Some(refused.as_str()), 1), "{err}");
    // Before it, discovery's retries log the dial error, as against a real stopped apiserver.
    let dial = format!("dial tcp 127.0.0.1:{port}: connect: connection refused");
    assert!(
        err.lines().rev().skip(1).all(|l| l.contains("memcache.go")
            && l.contains("couldn't get current server API group list")
            && l.contains(&dial)),
        "{err}"
    );
    let containers = prompt.run("ssh controlplane");
    assert_eq!(containers, "");
    let ps = prompt.run("crictl ps --name etcd -q");
    assert_eq!(ps.lines().count(), 1, "etcd's container runs on: {ps}");
    prompt.run("exit");
    assert_eq!(prompt.run("start kube-apiserver"), "");
    let pods = s.kubectl_until(&["get", "pods", "-n", "kube-system", "-l", "k8s-app=kube-dns", "--no-headers"], |o| {
        o.lines().count() == 2 && o.lines().all(|l| l.contains("Running"))
    });
    assert_eq!(pods.lines().filter(|l| l.contains("1/1") && l.contains("Running")).count(), 2, "{pods}");
}

#[test]
fn the_official_python_client_lists_creates_patches_watches_reads_logs_and_deletes() {
    // kubernetes==34.1.0 from PyPI (scripts/setup.sh), with the kubeconfig serve wrote: its models send
    // bodies without apiVersion and kind, `watch=True`, strategic merge patches.
    let s = Served::start(&[]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/serve_client.py");
    let out = Command::new("python3").arg(script).env("KUBECONFIG", &s.kubeconfig).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout,
        "nodes controlplane node01 node02\ncoredns pods 2 Running Running\ncreated settings resourceVersion set: True\n\
         patched slow\nconflict 409 Conflict\nwatched ADDED:settings\ndeployment coredns 2 2\npod Succeeded\n\
         log hello from python\nexec shell out err 3\ndeleted 404\n"
    );
}

#[test]
fn the_official_python_client_drives_custom_resources_as_a_controller_would() {
    let s = Served::start(&[]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/custom_objects.py");
    let out = Command::new("python3").arg(script).env("KUBECONFIG", &s.kubeconfig).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stdout,
        "established True True\ncreated w1 colour blue generation 1\nrefused 422 Unprocessable Entity\n\
         listed WidgetList ['w1']\nstatus True generation 1\nwatched ADDED:w1\ndefinition gone 404\nwidget gone 404\n"
    );
}

#[test]
fn the_real_kubectl_explains_and_validates_from_the_served_openapi() {
    // The real kubectl's explain renders the served OpenAPI v3 documents with its own template; the
    // simulated one renders the same schema table: the two must agree byte for byte, errors included.
    let (s, prompt) = Served::spawn(&[]);
    let mut prompt = prompt.unwrap();
    prompt.run("echo ready");
    let lines = [
        "explain pods",
        "explain deployment.spec",
        "explain deploy.spec.strategy.rollingUpdate.maxSurge",
        "explain pod.spec.containers.resources.limits",
        "explain pods.spec.containers.imagePullPolicy",
        "explain svc.spec.ports",
        "explain cronjobs.batch.spec.jobTemplate",
        "explain deployments.apps.metadata.creationTimestamp",
        "explain node.status.conditions",
        "explain events --api-version=events.k8s.io/v1",
        "explain events.events.k8s.io",
        "explain pods.spec.nosuch",
        "explain pods --api-version=apps/v1",
        "explain ingress.spec --recursive",
        "explain nosuchthing",
    ];
    // And every kind the real kubectl discovers: the kind, its whole tree, and its spec (or the error).
    let (kinds, _, _) = s.kubectl(&["api-resources", "--no-headers"], None);
    let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for row in kinds.lines() {
        let words: Vec<&str> = row.split_whitespace().collect();
        let (resource, api_version) = (words[0], words[words.len() - 3]);
        for what in ["", " --recursive"] {
            lines.push(format!("explain {resource} --api-version={api_version}{what}"));
        }
        lines.push(format!("explain {resource}.spec --api-version={api_version}"));
    }
    assert!(lines.len() > 120, "{kinds}");
    for line in &lines {
        let args: Vec<&str> = line.split_whitespace().collect();
        let (out, err, code) = s.kubectl(&args, None);
        let simulated = prompt.run(&format!("kubectl {line}"));
        assert_eq!(format!("{out}{err}"), simulated, "kubectl {line} (exit {code})");
    }
    // Validation: Strict refuses an unknown field, warn lets it through with the apiserver's warning.
    let bad = DEPLOYMENT.replace("replicas: 2", "replica: 2");
    let (_, err, code) = s.kubectl(&["apply", "-f", "-"], Some(&bad));
    assert_eq!(
        (err.as_str(), code),
        ("Error from server (BadRequest): error when creating \"STDIN\": Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replica\"\n", 1)
    );
    let (out, err, code) = s.kubectl(&["apply", "--validate=warn", "-f", "-"], Some(&bad));
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("deployment.apps/web created\n", "Warning: unknown field \"spec.replica\"\n", 0)
    );
    // A second apply computes its strategic merge patch from the served schema: the container is merged
    // by name, so changing its image keeps the rest of it.
    let changed = DEPLOYMENT.replace("nginx:1.27", "nginx:1.28");
    let (out, err, code) = s.kubectl(&["apply", "-f", "-", "-v=9"], Some(&changed));
    assert_eq!((out.as_str(), code), ("deployment.apps/web configured\n", 0), "{err}");
    assert!(err.contains("$setElementOrder/containers"), "the patch names the merge key's order: {err}");
    let (out, _, _) =
        s.kubectl(&["get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].image}"], None);
    assert_eq!(out, "nginx:1.28");
}

#[test]
fn the_real_kubectl_files_and_approves_a_certificate_signing_request() {
    let s = Served::start(&[]);
    let manifest = crate::certificates::csr("alice", "");
    let (out, err, code) = s.kubectl(&["apply", "-f", "-"], Some(&manifest));
    assert_eq!((out.as_str(), code), ("certificatesigningrequest.certificates.k8s.io/alice created\n", 0), "{err}");
    let (out, _, _) = s.kubectl(&["get", "csr", "alice", "-o", "jsonpath={.spec.username} {.spec.signerName}"], None);
    assert_eq!(out, "kubernetes-admin kubernetes.io/kube-apiserver-client");
    for _ in 0..2 {
        let (out, err, code) = s.kubectl(&["certificate", "approve", "alice"], None);
        assert_eq!(
            (out.as_str(), code),
            ("certificatesigningrequest.certificates.k8s.io/alice approved\n", 0),
            "{err}"
        );
    }
    let (out, _, _) = s.kubectl(&["get", "csr", "alice", "-o", "jsonpath={.status.conditions[*].reason}"], None);
    assert_eq!(out, "KubectlApprove");
    let (_, err, code) = s.kubectl(&["certificate", "deny", "alice"], None);
    assert_eq!((err.as_str(), code), ("error: certificate signing request \"alice\" is already Approved\n", 1));
}

#[test]
fn the_real_kubectl_and_the_simulated_one_change_two_copies_of_a_cluster_alike() {
    judge_pair(include_str!("corpus/writes.txt"));
}

/// Runs a corpus (`tests/corpus/writes.txt` says its form) on two copies of one cluster, both paused: each
/// kubectl line through the newest real kubectl against the first and through the simulated one inside
/// the second, their clocks brought together before each line. What a terminal shows and the exit status
/// must agree, after [`as_the_judge_prints`].
fn judge_pair(corpus: &str) {
    let (real, prompt) = Served::spawn(&["--paused"]);
    let mut real_prompt = prompt.unwrap();
    let (_simulated, prompt) = Served::spawn(&["--paused"]);
    let mut sim_prompt = prompt.unwrap();
    let kubectl = older_kubectl("1.33").unwrap_or_else(|| "kubectl".into());
    for p in [&mut real_prompt, &mut sim_prompt] {
        p.run("echo ready");
        assert_eq!(p.run("wait 15m"), "");
    }
    // Discovery read once, so each line sends what the command itself sends (kubectl caches it on disk).
    let (_, warm) = real.kubectl_merged(&kubectl, &["api-resources", "-o", "name"], None);
    assert_eq!(warm, 0);
    let mut lines = corpus.lines();
    let mut judged = 0;
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(control) = line.strip_prefix('@') {
            assert_eq!(real_prompt.run(control), sim_prompt.run(control), "@{control}");
            continue;
        }
        let (command, stdin) = match line.rsplit_once(" <<") {
            Some((command, delimiter)) => {
                let body: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
                (command, Some(format!("{}\n", body.join("\n"))))
            }
            None => (line, None),
        };
        same_time(&mut real_prompt, &mut sim_prompt);
        let args = kubeglass::kubectl::args::split_words(command).expect("a corpus line splits");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (out, code) = real.kubectl_merged(&kubectl, &args, stdin.as_deref());
        let typed = match &stdin {
            Some(text) => format!("kubectl {command} <<EOF\n{text}EOF"),
            None => format!("kubectl {command}"),
        };
        let printed = sim_prompt.run(&format!("{typed}\necho $?"));
        let (printed, status) = printed.trim_end_matches('\n').rsplit_once('\n').unwrap_or(("", &printed));
        let (printed, status) = match status.rsplit_once("kubeglass> ") {
            // Output without a final newline runs into the prompt that prints the status.
            Some((tail, status)) => (format!("{printed}\n{tail}"), status),
            None if printed.is_empty() => (String::new(), status),
            None => (format!("{printed}\n"), status),
        };
        let printed = printed.strip_prefix('\n').map(str::to_string).unwrap_or(printed);
        let simulated = as_the_judge_prints(&printed);
        let real = as_the_judge_prints(&out);
        assert!(
            same_but_for_clock_skew(&real, &simulated) && code.to_string() == status.trim(),
            "kubectl {command}\n--- real kubectl (exit {code}):\n{real}--- simulated (exit {status}):\n{simulated}"
        );
        judged += 1;
    }
    assert!(judged >= 150, "{judged} lines judged");
}

/// Moves the clock of whichever copy is behind up to the other's.
fn same_time(a: &mut Prompt, b: &mut Prompt) {
    let (ta, tb) = (go_duration_ms(&a.run("time")), go_duration_ms(&b.run("time")));
    if ta < tb {
        a.run(&format!("wait {}ms", tb - ta));
    } else if tb < ta {
        b.run(&format!("wait {}ms", ta - tb));
    }
}

/// A Go duration (`15m0.123s`) in milliseconds.
fn go_duration_ms(text: &str) -> u64 {
    let (mut total, mut number) = (0f64, String::new());
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match (c, chars.peek()) {
            ('m', Some('s')) => {
                chars.next();
                1.0
            }
            ('h', _) => 3_600_000.0,
            ('m', _) => 60_000.0,
            ('s', _) => 1_000.0,
            _ => panic!("not a duration: {text}"),
        };
        total += number.parse::<f64>().unwrap_or(0.0) * unit;
        number.clear();
    }
    total.round() as u64
}

/// The one place the judge's output and ours are brought to one form, for what differs by the real
/// kubectl's version or by construction (tests/differences.md lists each): v1.34 names the namespace a
/// deleted object was in (`deleted from default namespace`); v1.33 prints an object's unset
/// `creationTimestamp` as `null`; v1.34 warns before an attached session that it is recorded in the
/// container's log; `kubectl diff`'s temporary directories are numbered at random and its file times are
/// the machine's wall clock.
fn as_the_judge_prints(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed == "creationTimestamp: null" || trimmed.starts_with("All commands and output from this session") {
            continue;
        }
        if ["diff -u -N /tmp/LIVE-", "--- /tmp/LIVE-", "+++ /tmp/MERGED-"].iter().any(|p| line.starts_with(p)) {
            out.push_str(&diff_header(line));
            continue;
        }
        match line.split_once(" deleted from ").filter(|(_, rest)| rest.trim_end().ends_with(" namespace")) {
            Some((head, _)) => {
                out.push_str(head);
                out.push_str(" deleted\n");
            }
            None => out.push_str(line),
        }
    }
    out
}

/// A `kubectl diff` header line with its directories' numbers and its file times taken out:
/// `--- /tmp/LIVE-N/v1.ConfigMap.default.c\tTIME`.
fn diff_header(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line.split('\t').next().unwrap_or(line).trim_end();
    while let Some(at) = ["/tmp/LIVE-", "/tmp/MERGED-"].iter().filter_map(|d| rest.find(d).map(|i| i + d.len())).min() {
        out.push_str(&rest[..at]);
        out.push('N');
        rest = rest[at..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    if line.contains('\t') {
        out.push_str("\tTIME");
    }
    out.push('\n');
    out
}

/// Equal, or equal but for ages one second apart: the two copies' clocks meet before each line, yet within
/// a line the real kubectl's requests take their own simulated time, so an object made during it can be
/// older by a few milliseconds in one copy, and an age can round down across a second.
fn same_but_for_clock_skew(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    la.len() == lb.len()
        && la.iter().zip(&lb).all(|(x, y)| {
            let (wx, wy): (Vec<&str>, Vec<&str>) = (x.split_whitespace().collect(), y.split_whitespace().collect());
            wx.len() == wy.len()
                && wx.iter().zip(&wy).all(|(p, q)| {
                    p == q || matches!((age_seconds(p), age_seconds(q)), (Some(s), Some(t)) if s.abs_diff(t) <= 1)
                })
        })
}

/// kubectl's printed age (`5m1s`, `61s`, `2d3h`) in seconds.
fn age_seconds(word: &str) -> Option<u64> {
    let (mut total, mut number) = (0u64, String::new());
    for c in word.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        total += number.parse::<u64>().ok()? * unit;
        number.clear();
    }
    number.is_empty().then_some(total)
}

/// Read-only lines across the kinds, selectors, output formats, raw paths, auth and explain, and their error
/// cases: each was compared with the real kubectl by hand first (`tests/differences.md` lists what may differ).
const WIDE_CORPUS: &[&str] = &[
    "describe clusterrole view",
    "describe clusterrole cluster-admin",
    "describe clusterrole system:node-proxier",
    "describe clusterrole admin",
    "describe clusterrolebinding cluster-admin",
    "describe clusterrolebinding system:coredns",
    "describe role -n kube-system",
    "describe rolebinding -n kube-system",
    "describe ds kube-proxy -n kube-system",
    "describe endpoints kubernetes",
    "describe ep -n kube-system",
    "describe priorityclass system-cluster-critical",
    "describe pc",
    "get pods -n kube-system -o name",
    "get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.capacity.cpu",
    "get node controlplane -o yaml",
    "get svc -A -o wide",
    "get ep -A",
    "get deploy coredns -n kube-system -o json",
    "get cm kube-root-ca.crt -o yaml",
    "get sa default -o yaml",
    "get clusterroles --no-headers",
    "get clusterrolebindings",
    "get clusterrole cluster-admin -o yaml",
    "get rolebindings -n kube-system",
    "get ns kube-system --show-labels",
    "get lease -n kube-node-lease",
    "get pods -A -l k8s-app=kube-dns",
    "get pods -A --field-selector=status.phase=Running",
    "get pods -A --field-selector=spec.nodeName=node01",
    "get pods -A --sort-by=.metadata.creationTimestamp",
    "get nodes --sort-by=.metadata.name -o name",
    "get all -n kube-system",
    "get deploy,ds -n kube-system -o wide",
    "get pods --all-namespaces -o wide",
    "get priorityclass system-node-critical -o yaml",
    "get sc",
    "get pv,pvc -A",
    "get ingress -A",
    "get netpol -A",
    "get limitrange,resourcequota -A",
    "get pdb -A",
    "get hpa -A",
    "get jobs,cronjobs -A",
    "get sts -A",
    "get rs -A",
    "get controllerrevisions -A",
    "get endpointslices -n kube-system -o wide",
    "get validatingwebhookconfigurations,mutatingwebhookconfigurations",
    "get validatingadmissionpolicies",
    "get csinodes",
    "get ipaddresses",
    "get volumeattachments",
    "get deviceclasses,resourceslices",
    "get pods nope -n kube-system",
    "get nope",
    "get pods --field-selector=foo=bar",
    "get pods -o foo",
    "describe ns default",
    "describe sa default",
    "describe svc kube-dns -n kube-system",
    "describe cm kube-root-ca.crt",
    "describe pod nope",
    "describe nope",
    "auth can-i create pods",
    "auth can-i list secrets -n kube-system --as system:serviceaccount:kube-system:coredns",
    "auth whoami",
    "api-resources --namespaced=true -o name",
    "api-resources --api-group=apps",
    "api-resources --api-group= -o name",
    "explain pods.spec.containers.ports",
    "explain rc.spec",
    "explain csr.spec",
    "explain crd.spec.versions",
    "explain flowschema.spec.rules",
    "explain apiservice.spec",
    "get apiservices -o name",
    "get flowschemas -o name",
    "get prioritylevelconfiguration exempt -o yaml",
    "describe sa coredns -n kube-system",
    "get pods -A --no-headers",
    "get pods -A -o wide --no-headers",
    "get nodes --show-labels",
    "get nodes -L kubernetes.io/hostname",
    "get pods -n kube-system --sort-by=.status.startTime -o name",
    "get secrets -A",
    "get events --field-selector type=Warning -A",
    "get deploy -A -o custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,IMAGE:.spec.template.spec.containers[0].image",
    "get pods -n kube-system -l tier=control-plane",
    "get ns -o name",
    "get lease -n kube-system",
    "get role,rolebinding -n kube-public",
    "get clusterrole system:node -o yaml",
    "get crd",
    "get rc",
    "get podtemplates",
    "get pods --chunk-size=1 -A -o name",
    "get pods -n default",
    "get pods -n nope",
    "get deploy -n nope",
    "get deployment.apps -A",
    "get deployments.v1.apps -A",
    "get po,svc -n kube-system",
    "get rs,deploy -n kube-system -o name",
    "get cm,secret,sa -n default",
    "get all",
    "get all -A --no-headers",
    "get endpoints -A",
    "get ep kubernetes -o yaml",
    "get sa -A --no-headers",
    "get --raw /api",
    "get --raw /apis/apps/v1",
    "get --raw /version",
    "get --raw /healthz",
    "get --raw /readyz?verbose",
    "get --raw /livez/etcd",
    "get --raw /api/v1/namespaces/default/services/kubernetes",
    "get --raw /nope",
    "get pods --raw /api",
    "auth can-i list pods -n kube-system",
    "auth can-i create deployments --namespace=dev",
    "auth can-i get pods --subresource=log",
    "auth can-i --list -n kube-system",
    "auth can-i list pods --as=system:serviceaccount:default:default",
    "auth can-i list pods --as=system:serviceaccount:default:default -n default",
    "auth can-i get /healthz",
    "auth can-i nope",
    "auth can-i",
    "explain deployment.spec.strategy",
    "explain pod --recursive",
    "explain nope",
    "explain svc.spec.type",
    "explain cj.spec.schedule",
    "explain ingress.spec.rules.http.paths",
    "explain node.status.addresses",
    "explain pv.spec.accessModes",
    "api-resources --verbs=create --namespaced=false -o name",
    "api-resources -o name",
    "api-resources --sort-by=name --no-headers",
    "api-resources --categories=api-extensions",
    "config get-contexts",
    "config current-context",
    "get pods --selector=app=web -A",
    "get pods -n kube-system -o custom-columns=NAME:.metadata.name,STATUS:.status.phase --sort-by=.metadata.name",
    "describe ns kube-system",
    "describe pod -n kube-system -l component=etcd",
    "describe sc",
    "describe pvc",
    "describe apiservice v1.apps",
    "describe flowschema exempt",
    "describe csr",
    "describe rc",
];

#[test]
fn the_real_kubectl_debugs_a_pod_with_an_ephemeral_container_and_a_node_with_a_pod() {
    let s = Served::start(&[]);
    s.kubectl(&["run", "web", "--image=nginx"], None);
    s.kubectl_until(&["get", "pod", "web", "--no-headers"], |o| o.contains("Running"));
    let tty = |args: &[&str]| -> String {
        let out = Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/kubectl_tty.py"))
            .args(args)
            .env("KUBECONFIG", &s.kubeconfig)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    // The ephemeral container shares the pod's network: nginx answers on localhost.
    let shown = tty(&["/ # ", "debug", "web", "-it", "--image=busybox", "::", "", "wget -qO- localhost", "exit"]);
    assert!(shown.contains("Defaulting debug container name to debugger-"), "{shown}");
    assert!(shown.contains("/ # wget -qO- localhost\\r\\n<!DOCTYPE html>"), "{shown}");
    assert!(
        shown.contains("Session ended, the ephemeral container will not be restarted but may be reattached using \\'kubectl attach web -c debugger-"),
        "{shown}"
    );
    let (out, _, _) = s.kubectl(
        &["get", "pod", "web", "-o", "jsonpath={.status.ephemeralContainerStatuses[0].state.terminated.reason}"],
        None,
    );
    assert_eq!(out, "Completed");
    let (out, _, _) = s.kubectl(&["describe", "pod", "web"], None);
    assert!(out.contains("\nEphemeral Containers:\n  debugger-"), "{out}");
    // A node: the debugging pod shares its network namespace, so its hostname is the node's.
    let shown = tty(&["/ # ", "debug", "node/node01", "-it", "--image=busybox", "::", "", "hostname", "exit"]);
    assert!(shown.contains("Creating debugging pod node-debugger-node01-"), "{shown}");
    assert!(shown.contains("/ # hostname\\r\\nnode01\\r\\n"), "{shown}");
    // The apiserver's refusal reaches the real kubectl as the apiserver words it.
    let (_, err, code) = s.kubectl(&["debug", "web", "--image=busybox", "-c", "web"], None);
    assert!(
        err.ends_with("The Pod \"web\" is invalid: spec.ephemeralContainers[1].name: Duplicate value: \"web\"\n"),
        "{err}"
    );
    assert_eq!(code, 1);
}

#[test]
fn the_real_kubectl_copies_files_out_of_containers_over_exec() {
    let s = Served::start(&[]);
    s.kubectl(&["run", "web", "--image=nginx"], None);
    s.kubectl(&["run", "bb", "--image=busybox", "--", "sleep", "3600"], None);
    s.kubectl_until(&["get", "pods", "--no-headers"], |o| o.lines().filter(|l| l.contains("Running")).count() == 2);
    let dir = std::env::temp_dir().join(format!("kubeglass-cp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // kubectl runs `tar cf - PATH` in the container and unpacks what it writes. tar's note goes to its
    // stderr, which kubectl shows only if it reads it before the archive ends (it stops at the archive's end).
    let hostname = dir.join("hostname");
    let (_, err, code) = s.kubectl(&["cp", "web:/etc/hostname", hostname.to_str().unwrap()], None);
    assert!(["", "tar: Removing leading `/' from member names\n"].contains(&err.as_str()), "{err}");
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&hostname).unwrap(), "web\n");
    let hosts = dir.join("hosts");
    let (_, err, code) = s.kubectl(&["cp", "bb:/etc/hosts", hosts.to_str().unwrap()], None);
    assert!(["", "tar: removing leading '/' from member names\n"].contains(&err.as_str()), "{err}");
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&hosts).unwrap();
    assert!(text.starts_with("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"), "{text}");
    assert!(text.trim_end().ends_with("\tbb"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A real `kubectl port-forward` to the served cluster, its local port read from what it prints.
struct Forward {
    child: Child,
    port: u16,
}

impl Forward {
    fn start(s: &Served, args: &[&str], env: &[(&str, &str)]) -> Forward {
        let mut child = Command::new("kubectl")
            .arg("port-forward")
            .args(args)
            .env("KUBECONFIG", &s.kubeconfig)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the real kubectl runs");
        let mut first = String::new();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut first).unwrap();
        // It goes on printing (`Handling connection for …`): keep reading, or its writes fail.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        // `Forwarding from 127.0.0.1:40123 -> 80`
        let port = first.split(" -> ").next().and_then(|l| l.rsplit(':').next()).and_then(|p| p.parse().ok());
        Forward { child, port: port.unwrap_or_else(|| panic!("kubectl printed {first:?}")) }
    }

    /// One HTTP request on a new local connection, the client's side closed after it as curl's is once
    /// it has read the answer: every byte that comes back.
    fn get(&self, request: &str) -> String {
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        conn.write_all(request.as_bytes()).unwrap();
        conn.shutdown(std::net::Shutdown::Write).unwrap();
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(&mut conn, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// kubectl's stderr and exit code once it has ended (None: it was still forwarding, so it was stopped).
    fn finish(mut self, wait: bool) -> (String, Option<i32>) {
        let tries = if wait { 100 } else { 1 };
        let exited = (0..tries).find_map(|_| {
            let status = self.child.try_wait().ok().flatten();
            if status.is_none() {
                std::thread::sleep(Duration::from_millis(100));
            }
            status
        });
        if exited.is_none() {
            let _ = self.child.kill();
        }
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err);
        let _ = self.child.wait();
        (err, exited.and_then(|s| s.code()))
    }
}

#[test]
fn the_real_kubectl_forwards_local_ports_to_a_pods_listener() {
    let s = Served::start(&[]);
    s.kubectl(&["run", "web", "--image=nginx:1.27", "--port=80"], None);
    s.kubectl(&["expose", "pod", "web", "--port=8000", "--target-port=80"], None);
    s.kubectl_until(&["get", "pods", "--no-headers"], |o| o.contains("Running"));
    let request = "GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n";
    // kubectl 1.31 and later tunnel SPDY through WebSocket; with the tunnel turned off (and in 1.30 and
    // older) it speaks SPDY/3.1 itself. A Service is forwarded to one of its pods, its port translated.
    for (args, env) in [
        (["pod/web", ":80"], &[][..]),
        (["pod/web", ":80"], &[("KUBECTL_PORT_FORWARD_WEBSOCKETS", "false")][..]),
        (["svc/web", ":8000"], &[][..]),
    ] {
        let forward = Forward::start(&s, &args, env);
        let page = forward.get(request);
        assert!(page.starts_with("HTTP/1.1 200 OK\r\nServer: nginx/1.27.5\r\nDate: "), "{args:?} {env:?}: {page}");
        assert!(page.contains("\r\nContent-Length: 615\r\n"), "{page}");
        assert!(page.ends_with("<p><em>Thank you for using nginx.</em></p>\n</body>\n</html>\n"), "{page}");
        // A HEAD has the headers only; a second connection is a second pair of streams.
        let head = forward.get(&request.replacen("GET", "HEAD", 1));
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n") && head.ends_with("Accept-Ranges: bytes\r\n\r\n"), "{head}");
        let (err, code) = forward.finish(false);
        assert_eq!((err.as_str(), code), ("", None), "{args:?} {env:?}");
    }
    // Nothing listens on 81: containerd's dial fails inside the pod's network namespace, the error stream
    // says so, and kubectl gives up on the connection.
    let forward = Forward::start(&s, &["pod/web", ":81"], &[]);
    assert_eq!(forward.get(request), "");
    let (err, code) = forward.finish(true);
    assert!(err.contains("\"Unhandled Error\" err=\"an error occurred forwarding "), "{err}");
    assert!(err.contains(" -> 81: error forwarding port 81 to pod "), "{err}");
    assert!(
        err.contains(
            "\\\", IPv4: dial tcp4 127.0.0.1:81: connect: connection refused IPv6 dial tcp6 [::1]:81: connect: connection refused \""
        ),
        "{err}"
    );
    assert!(err.ends_with("error: lost connection to pod\n"), "{err}");
    assert_eq!(code, Some(1));
    // What fails before the stream exists is kubectl's own check or the apiserver's answer.
    let (_, err, code) = s.kubectl(&["port-forward", "pod/nope", "8080:80"], None);
    assert_eq!((err.as_str(), code), ("Error from server (NotFound): pods \"nope\" not found\n", 1));
}

#[test]
fn a_paused_cluster_delivers_a_watchs_first_events_with_its_answer() {
    let (s, _) = Served::spawn(&["--paused", "--no-prompt"]);
    let (out, _, _) = s.kubectl(&["get", "pods", "-n", "kube-system", "--no-headers"], None);
    let pods = out.lines().count();
    assert!(pods >= 4, "{out}");
    // A watch from resourceVersion 0 starts with an ADDED event per pod; the clock does not move for them,
    // but they were written with the watch's answer.
    let path = "/api/v1/namespaces/kube-system/pods?watch=true&resourceVersion=0";
    let mut child = Command::new("kubectl")
        .args(["get", "--raw", path])
        .env("KUBECONFIG", &s.kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the real kubectl runs");
    let (sender, lines) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut added = 0;
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(10)) {
        assert!(line.starts_with("{\"type\":\"ADDED\""), "{line}");
        added += 1;
        if added == pods {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(added, pods);
}
