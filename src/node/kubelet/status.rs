//! The pod status the kubelet posts (`pkg/kubelet/kubelet_pods.go` generateAPIPodStatus and
//! `status/generate.go`): phase, conditions, containerStatuses and initContainerStatuses from containerd's
//! containers, the pod worker's waiting reasons and the probes' results.
//!
//! - A container that has not run yet waits with `ContainerCreating`, or `PodInitializing` in a pod with
//!   init containers; a container that ended is `terminated` with reason `Completed` (exit 0), `OOMKilled`
//!   (the OOM killer), `Unknown` (its task died with a reboot: exit code 255) or `Error`; its previous run is
//!   its `lastState`.
//! - A completed init container is `ready`; a running container is ready once started (its startup probe
//!   passed) and its readiness probe, if any, passed.
//! - The phase is Pending while init containers have not completed, Failed when one failed for good
//!   (restartPolicy Never), then follows the app containers.
//! - `Initialized` is False (`ContainersNotInitialized`, `containers with incomplete status: [...]`) until
//!   every init container completed (a sidecar: started); `Ready` and `ContainersReady` list the app
//!   containers and sidecars that are not ready.
//!
//! The status manager's sync (`status/status_manager.go` syncBatch, every 10 s) compares each pod's status
//! as the apiserver holds it (the kubelet's informer) with the one it posted (`needsReconcile`, by what
//! `isPodStatusByKubeletEqual` looks at) and posts its own again when they differ, so a Ready condition someone
//! else set to False (the node lifecycle controller's `MarkPodsNotReady`) comes back; a status it could not
//! send yet (the apiserver was down, a static pod's mirror pod did not exist) is sent then.

use serde_json::{json, Value};

use crate::api::api::core::v1::Container as ApiContainer;
use crate::api::Object;
use crate::node::runtime::{normalize, Container, ContainerState};
use crate::sim::{Ctx, SimTime};

use super::pod_ref::reconcile_key;
use super::{has_init_containers, restart_policy, waiting_state, Kubelet, Role, Worker};

/// How one container stands, for the phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    Running,
    /// Ended and will not run again, with its exit code.
    Done(i32),
    /// Ended, waiting to be restarted.
    Restarting,
    /// Never ran yet.
    Waiting,
}

fn terminated(c: &Container) -> Value {
    let reason = if c.lost {
        "Unknown"
    } else if c.oom_killed {
        "OOMKilled"
    } else if c.exit_code == 0 {
        "Completed"
    } else {
        "Error"
    };
    json!({"terminated": {
        "exitCode": c.exit_code,
        "reason": reason,
        "startedAt": c.started_at.map(SimTime::rfc3339),
        "finishedAt": c.finished_at.map(SimTime::rfc3339),
        "containerID": format!("containerd://{}", c.id),
    }})
}

impl Kubelet {
    /// The status manager's periodic sync: pods whose status in the apiserver is not what was posted for
    /// them get it posted again.
    pub(super) fn reconcile_pod_statuses(&mut self, ctx: &mut Ctx) {
        if !self.conn.synced() || self.listed < 2 || !self.runtime_up {
            return;
        }
        let mut stale = Vec::new();
        let mut unsent = Vec::new();
        for (uid, w) in &self.workers {
            if w.gone || w.orphan || w.status_in_flight {
                continue;
            }
            let Some(posted) = w.last_status else {
                // Never sent by this process (or the last send failed): send it now.
                unsent.push(uid.clone());
                continue;
            };
            if posted.terminal {
                continue;
            }
            let Some(held) = self.conn.informer(0).get(&w.key) else { continue };
            let Object::Pod(pod) = held.as_ref() else { continue };
            let rv = pod.metadata.resource_version.clone();
            if rv.is_some() && rv == w.verified_rv {
                continue;
            }
            let status = pod.status.as_ref().and_then(|s| serde_json::to_value(s).ok()).unwrap_or_default();
            stale.push((uid.clone(), rv, reconcile_key(&status) != posted.reconcile));
        }
        for uid in unsent {
            self.post_pod_status(ctx, &uid);
        }
        for (uid, rv, differs) in stale {
            let Some(w) = self.workers.get_mut(&uid) else { continue };
            if differs {
                w.last_status = None;
                w.verified_rv = None;
                self.post_pod_status(ctx, &uid);
            } else {
                w.verified_rv = rv;
            }
        }
    }

    /// One container's status and where it stands.
    fn container_status(&self, uid: &str, w: &Worker, spec: &ApiContainer, role: Role) -> (Value, Standing) {
        let policy = restart_policy(&w.pod);
        let history: Vec<&Container> = self.pod_containers(uid, &spec.name);
        let current = history.last().copied();
        let previous = history.iter().rev().nth(1).copied();
        let waiting = w.waiting.get(&spec.name);
        let default_wait = if has_init_containers(&w.pod) { "PodInitializing" } else { "ContainerCreating" };
        let mut last_state = previous.map_or_else(|| json!({}), terminated);
        let (mut ready, mut started) = (false, false);
        let (state, standing) = match current {
            Some(c) if c.state == ContainerState::Running => {
                (started, ready) = self.probed(w, spec, c);
                (json!({"running": {"startedAt": c.started_at.map(SimTime::rfc3339)}}), Standing::Running)
            }
            Some(c) if c.state == ContainerState::Exited && !role.restarts(&policy, c.exit_code) => {
                ready = role == Role::Init && c.exit_code == 0;
                (terminated(c), Standing::Done(c.exit_code))
            }
            Some(c) if c.state == ContainerState::Exited => {
                // Waiting to be restarted: the last run is the last state.
                last_state = terminated(c);
                let state = match waiting {
                    Some((reason, message)) => waiting_state(reason, message),
                    None => terminated(c),
                };
                (state, Standing::Restarting)
            }
            _ => {
                let (reason, message) = waiting.cloned().unwrap_or_else(|| (default_wait.into(), String::new()));
                (waiting_state(&reason, &message), Standing::Waiting)
            }
        };
        let image = current.map(|c| c.image.clone()).unwrap_or_else(|| normalize(spec.image.as_deref().unwrap_or("")));
        let mut s = json!({
            "name": spec.name,
            "image": image,
            "imageID": current.map(|c| c.image_ref.clone()).unwrap_or_default(),
            "ready": ready,
            "started": started,
            "restartCount": current.map_or(0, |c| c.attempt),
            "state": state,
            "lastState": last_state,
        });
        if let Some(c) = current {
            s["containerID"] = json!(format!("containerd://{}", c.id));
        }
        (s, standing)
    }

    pub(super) fn pod_status(&mut self, ctx: &Ctx, uid: &str, w: &Worker) -> Value {
        let spec = w.pod.spec.clone().unwrap_or_default();
        let inits = spec.init_containers.clone().unwrap_or_default();
        let specs = spec.containers.clone();
        let mut init_statuses = Vec::new();
        let mut incomplete = Vec::new();
        let mut init_failed = false;
        let mut unready = Vec::new();
        for c in &inits {
            let role = Role::of(c, true);
            let (s, standing) = self.container_status(uid, w, c, role);
            let complete = match role {
                Role::Sidecar => s["started"] == json!(true),
                _ => standing == Standing::Done(0),
            };
            if !complete {
                incomplete.push(c.name.clone());
            }
            if role == Role::Init && matches!(standing, Standing::Done(code) if code != 0) {
                init_failed = true;
            }
            if role == Role::Sidecar && s["ready"] != json!(true) {
                unready.push(c.name.clone());
            }
            init_statuses.push(s);
        }
        let initialized = incomplete.is_empty();
        let mut statuses = Vec::new();
        let (mut running, mut exited, mut failed, mut pending) = (0, 0, 0, 0);
        for c in &specs {
            let (s, standing) = self.container_status(uid, w, c, Role::App);
            match standing {
                Standing::Running | Standing::Restarting => running += 1,
                Standing::Done(code) => {
                    exited += 1;
                    if code != 0 {
                        failed += 1;
                    }
                }
                Standing::Waiting => pending += 1,
            }
            if s["ready"] != json!(true) {
                unready.push(c.name.clone());
            }
            statuses.push(s);
        }
        let n = specs.len();
        // getPhase: a pod being deleted whose containers all stopped is terminal whatever its restart policy
        // (static pods excepted), so a Job can count it.
        let stopped: Vec<i32> = specs
            .iter()
            .filter_map(|s| self.pod_containers(uid, &s.name).last().copied())
            .filter(|c| c.state == ContainerState::Exited)
            .map(|c| c.exit_code)
            .collect();
        let deleting = (w.gone || w.pod.metadata.deletion_timestamp.is_some()) && !w.is_static;
        let phase = if init_failed {
            "Failed"
        } else if !initialized && !deleting {
            "Pending"
        } else if deleting && n > 0 && stopped.len() == n {
            if stopped.iter().all(|code| *code == 0) {
                "Succeeded"
            } else {
                "Failed"
            }
        } else if n > 0 && exited == n {
            if failed > 0 {
                "Failed"
            } else {
                "Succeeded"
            }
        } else if running > 0 || (exited > 0 && pending == 0) {
            "Running"
        } else {
            "Pending"
        };
        let terminal = matches!(phase, "Succeeded" | "Failed");
        let not_ready_msg = format!("containers with unready status: [{}]", unready.join(" "));
        let incomplete_msg = format!("containers with incomplete status: [{}]", incomplete.join(" "));
        let ready_now = unready.is_empty() && initialized && n > 0 && !terminal;
        let mut conditions = Vec::new();
        let mut cond = |w: &mut Worker, t: &str, ok: bool, reason: Option<&str>, message: Option<&str>| {
            let since = match w.conditions.get(t) {
                Some((s, at)) if *s == ok => at.clone(),
                _ => {
                    let at = ctx.now.rfc3339();
                    w.conditions.insert(t.to_string(), (ok, at.clone()));
                    at
                }
            };
            let mut c = json!({"type": t, "status": if ok { "True" } else { "False" }, "lastProbeTime": null,
                               "lastTransitionTime": since});
            if let (false, Some(r)) = (ok, reason) {
                c["reason"] = json!(r);
            }
            if let (false, Some(m)) = (ok, message) {
                c["message"] = json!(m);
            }
            conditions.push(c);
        };
        let Some(worker) = self.workers.get_mut(uid) else { return json!({}) };
        let reason = if terminal { "PodCompleted" } else { "ContainersNotReady" };
        let message = (!terminal).then_some(not_ready_msg.as_str());
        cond(worker, "PodReadyToStartContainers", w.sandbox.is_some() && !terminal, None, None);
        let succeeded = phase == "Succeeded";
        let init_reason = if succeeded { "PodCompleted" } else { "ContainersNotInitialized" };
        let init_message = (!succeeded).then_some(incomplete_msg.as_str());
        cond(worker, "Initialized", initialized, Some(init_reason), init_message);
        cond(worker, "Ready", ready_now, Some(reason), message);
        cond(worker, "ContainersReady", ready_now, Some(reason), message);
        cond(worker, "PodScheduled", true, None, None);
        let host_ip = self.cfg.node_ip.clone();
        let mut status = json!({
            "phase": phase,
            "conditions": conditions,
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "startTime": w.start_time.map(SimTime::rfc3339),
            "containerStatuses": statuses,
        });
        if !init_statuses.is_empty() {
            status["initContainerStatuses"] = json!(init_statuses);
        }
        if !w.ephemeral.is_empty() {
            let ephemeral: Vec<Value> = w
                .ephemeral
                .iter()
                .map(|c| {
                    let (mut s, _) = self.container_status(uid, w, c, Role::Ephemeral);
                    // Ephemeral containers have no probes and are never ready.
                    s["ready"] = json!(false);
                    s
                })
                .collect();
            status["ephemeralContainerStatuses"] = json!(ephemeral);
        }
        if let Some(ip) = w.ip.as_ref().filter(|_| w.sandbox.is_some()) {
            status["podIP"] = json!(ip);
            status["podIPs"] = json!([{ "ip": ip }]);
        }
        status
    }
}
