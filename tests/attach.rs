//! `kubectl attach` and `kubectl run -i|-t|--attach [--rm]`: kubectl waits for the pod, POSTs
//! `pods/<name>/attach`, which the apiserver proxies to the kubelet and containerd attaches to the main
//! process; a shell on an open stdin runs what kubectl pipes to it, and ends with `exit` or when a
//! `stdinOnce` stdin closes.

use kubeglass::cluster::Cluster;

use crate::kubectl;

const RECORDED: &str = "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.\nIf you don't see a command prompt, try pressing enter.\n";

fn cluster() -> Cluster {
    let mut c = Cluster::new_default(3);
    c.advance_ms(2_000);
    c
}

#[test]
fn run_i_pipes_stdin_to_the_shell_and_rm_deletes_the_pod_after_it() {
    let mut c = cluster();
    let r = c.kubectl("run t --rm -i --image=busybox -- sh", Some("echo hello\nhostname\nexit 0\n".into()), 120_000);
    assert_eq!(r.output, format!("{RECORDED}hello\nt\npod \"t\" deleted from default namespace\n"));
    assert_eq!(r.exit, Some(0));
    // kubectl does not wait for the deletion: the pod terminates within its grace period.
    c.advance_ms(40_000);
    let (out, _) = kubectl(&mut c, "get pod t");
    assert!(out.contains("NotFound") || out.contains("not found"), "{out}");
}

#[test]
fn a_failed_never_pod_ends_kubectl_with_its_exit_code() {
    let mut c = cluster();
    let r = c.kubectl("run t -i --restart=Never --image=busybox -- sh", Some("echo bye\nexit 3\n".into()), 120_000);
    assert_eq!(r.output, format!("{RECORDED}bye\npod default/t terminated (Error)\n"));
    assert_eq!(r.exit, Some(3));
}

#[test]
fn a_command_that_ends_before_kubectl_attaches_has_its_log_printed() {
    let mut c = cluster();
    let r = c.kubectl("run t --rm -i --restart=Never --image=busybox -- sh -c 'echo hi there'", None, 120_000);
    assert!(r.output.contains("hi there\n"), "{}", r.output);
    assert!(r.output.ends_with("pod \"t\" deleted from default namespace\n"), "{}", r.output);
    assert_eq!(r.exit, Some(0));
}

#[test]
fn attach_follows_the_main_process_until_it_ends() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "run t --image=busybox -- sh -c 'sleep 8; echo done; sleep 2'");
    assert_eq!((out.as_str(), code), ("pod/t created\n", Some(0)));
    c.advance_ms(5_000);
    let r = c.kubectl("attach t", None, 60_000);
    assert_eq!(r.output, format!("{RECORDED}done\n"));
    assert_eq!(r.exit, Some(0));
}

#[test]
fn a_terminal_pod_without_a_terminal_on_the_client_notes_it_and_still_runs_the_input() {
    let mut c = cluster();
    let r = c.kubectl("run t -it --image=busybox --restart=Never -- sh", Some("echo tty\n".into()), 120_000);
    assert_eq!(
        r.output,
        format!("Unable to use a TTY - input is not a terminal or the right kind of file\n{RECORDED}echo tty\r\ntty\r\n/ # ")
    );
    assert_eq!(r.exit, Some(0));
    let (logs, _) = kubectl(&mut c, "logs t");
    // The shell's first prompt was written before kubectl attached: the log has it, the session not.
    assert_eq!(logs, "/ # echo tty\ntty\n");
}

#[test]
fn leave_stdin_open_keeps_the_shell_for_the_next_attach() {
    let mut c = cluster();
    let r = c.kubectl("run t -i --leave-stdin-open --image=busybox -- sh", Some("echo first\n".into()), 120_000);
    assert_eq!(r.output, format!("{RECORDED}first\n"));
    let r = c.kubectl("attach t -i", Some("echo second\nexit 0\n".into()), 60_000);
    assert_eq!(r.output, format!("{RECORDED}second\n"));
    // `exit` ended the container, and `restartPolicy: Always` started a new one: the session is the
    // previous container's log.
    c.advance_ms(3_000);
    let (logs, _) = kubectl(&mut c, "logs t --previous");
    assert_eq!(logs, "first\nsecond\n");
}

#[test]
fn attach_refuses_completed_pods_and_unknown_containers_as_kubectl_does() {
    let mut c = cluster();
    kubectl(&mut c, "run t --restart=Never --image=busybox -- true");
    kubectl(&mut c, "run s --image=busybox -- sleep infinity");
    c.advance_ms(10_000);
    assert_eq!(
        kubectl(&mut c, "attach t"),
        ("error: cannot attach a container in a completed pod; current phase is Succeeded\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "attach s -c nope"),
        ("error: cannot attach to the container: container nope not found in pod s\n".into(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "attach"), ("error: at least 1 argument is required for attach\n".into(), Some(1)));
    assert_eq!(
        kubectl(&mut c, "attach a b c"),
        ("error: expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw 3: [a b c]\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "attach s --pod-running-timeout=0"),
        (
            "error: --pod-running-timeout must be higher than zero\nSee 'kubectl attach -h' for help and examples\n"
                .into(),
            Some(1)
        )
    );
}
