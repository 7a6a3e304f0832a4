//! Example manifests the web app's editor offers one click away. Each is applied to the default cluster by
//! the tests below, so none of them can stop being valid.

/// (button label, manifest).
pub const EXAMPLES: [(&str, &str); 4] =
    [("Deployment", DEPLOYMENT), ("Service", SERVICE), ("Pod with nodeName", PINNED_POD), ("Job", JOB)];

const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
";

const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 80
";

/// Bypasses kube-scheduler: the kubelet of the named node runs it even while the scheduler is stopped.
const PINNED_POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: pinned
spec:
  nodeName: node01
  containers:
  - name: nginx
    image: nginx:1.27
";

const JOB: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: hello
spec:
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: hello
        image: busybox:1.36
        command: [sh, -c, 'echo hello from $(hostname); sleep 5']
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::session::Session;

    fn get(s: &mut Session, line: &str) -> String {
        crate::scenario::runner::kubectl(s.cluster_mut(), line, None).0
    }

    #[test]
    fn every_example_applies_and_does_what_it_says() {
        let mut s = Session::new_default();
        for (label, manifest) in EXAMPLES {
            let pid = s.apply(manifest).unwrap_or_else(|e| panic!("{label}: {e:?}"));
            s.cluster_mut().advance_ms(2_000);
            let out = s.poll().into_iter().find(|p| p.pid == pid).unwrap_or_else(|| panic!("{label} printed"));
            assert_eq!(out.exit, Some(0), "{label}: {}", out.text);
            assert!(out.text.ends_with(" created\n"), "{label}: {}", out.text);
        }
        s.cluster_mut().advance_ms(60_000);
        let pods = get(&mut s, "get pods -o wide");
        assert_eq!(pods.lines().filter(|l| l.starts_with("web-") && l.contains(" Running ")).count(), 3, "{pods}");
        assert!(pods.lines().any(|l| l.starts_with("pinned ") && l.contains(" Running ") && l.contains("node01")));
        assert_eq!(pods.lines().filter(|l| l.starts_with("hello-") && l.contains(" Completed ")).count(), 2, "{pods}");
        assert!(get(&mut s, "get endpoints web").contains(":80,"));
        assert!(get(&mut s, "get jobs").contains("Complete"));
    }
}
