//! The systemd units of a node, kubelet.service and containerd.service as a kubeadm node installs them
//! (the pkgs.k8s.io kubelet package with kubeadm's `10-kubeadm.conf` drop-in; containerd's own unit), and
//! the lines systemd 255 (Ubuntu 24.04, see [`super::os`]) writes to a unit's journal when it starts it, stops it or its
//! process dies. `systemctl` prints from here; the cluster writes the lines whenever a unit's process starts
//! or stops, whoever asked for it.

use super::journal::Journal;
use super::os;
use crate::sim::SimTime;

/// One systemd service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// The component name on the node (`kubelet` in `node01/kubelet`).
    pub name: &'static str,
    pub description: &'static str,
    /// The unit file's name in [`os::UNIT_DIR`].
    pub unit_file: &'static str,
    /// Drop-in directory and file.
    pub drop_in: Option<(&'static str, &'static str)>,
    pub docs: &'static str,
    /// The `ExecStart=` line as systemd shows it for a finished process.
    pub exec_start: &'static str,
    /// The process's command line (the CGroup tree's line).
    pub command_line: &'static str,
    /// `Type=notify`: systemd logs `Starting …` before `Started …`.
    pub notify: bool,
    /// `RestartSec=` (systemd restarts the process after it dies).
    pub restart_sec: u64,
}

pub const KUBELET: Unit = Unit {
    name: "kubelet",
    description: "kubelet: The Kubernetes Node Agent",
    unit_file: "kubelet.service",
    drop_in: Some(("/usr/lib/systemd/system/kubelet.service.d", "10-kubeadm.conf")),
    docs: "https://kubernetes.io/docs/",
    exec_start:
        "/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS",
    command_line: "/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \
                   --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml \
                   --container-runtime-endpoint=unix:///var/run/containerd/containerd.sock \
                   --pod-infra-container-image=registry.k8s.io/pause:3.10",
    notify: false,
    restart_sec: 10,
};

pub const CONTAINERD: Unit = Unit {
    name: "containerd",
    description: "containerd container runtime",
    unit_file: "containerd.service",
    drop_in: None,
    docs: "https://containerd.io",
    exec_start: "/usr/bin/containerd",
    command_line: "/usr/bin/containerd",
    notify: true,
    restart_sec: 5,
};

pub const UNITS: [Unit; 2] = [KUBELET, CONTAINERD];

/// The unit a `systemctl` argument names (`kubelet`, `kubelet.service`).
pub fn find(arg: &str) -> Option<Unit> {
    let name = arg.strip_suffix(".service").unwrap_or(arg);
    UNITS.iter().copied().find(|u| u.name == name)
}

/// The unit of a node component (`kubelet`, `containerd`).
pub fn of_component(component: &str) -> Option<Unit> {
    UNITS.iter().copied().find(|u| u.name == component)
}

impl Unit {
    /// `kubelet.service`.
    pub fn service(&self) -> String {
        format!("{}.service", self.name)
    }

    /// `/usr/lib/systemd/system/kubelet.service`.
    pub fn unit_path(&self) -> String {
        format!("{}/{}", os::UNIT_DIR, self.unit_file)
    }

    /// `kubelet.service - kubelet: The Kubernetes Node Agent`: how systemd names a unit in its status lines
    /// (`StatusUnitFormat=combined`, the default since systemd 250).
    pub fn status_name(&self) -> String {
        format!("{} - {}", self.service(), self.description)
    }

    /// systemd started the unit's process.
    pub fn log_started(&self, journal: &mut Journal, at: SimTime) {
        if self.notify {
            journal.systemd(at, &format!("Starting {}...", self.status_name()));
        }
        journal.systemd(at, &format!("Started {}.", self.status_name()));
    }

    /// systemd stopped the unit (`systemctl stop`).
    pub fn log_stopped(&self, journal: &mut Journal, at: SimTime) {
        journal.systemd(at, &format!("Stopping {}...", self.status_name()));
        journal.systemd(at, &format!("{}: Deactivated successfully.", self.service()));
        journal.systemd(at, &format!("Stopped {}.", self.status_name()));
    }

    /// The unit's process was killed; systemd schedules its restart (`Restart=always`).
    pub fn log_killed(&self, journal: &mut Journal, at: SimTime, restarts: u32) {
        let service = self.service();
        journal.systemd(at, &format!("{service}: Main process exited, code=killed, status=9/KILL"));
        journal.systemd(at, &format!("{service}: Failed with result 'signal'."));
        journal.systemd(at, &format!("{service}: Scheduled restart job, restart counter is at {restarts}."));
        journal.systemd(at, &format!("Stopped {}.", self.status_name()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_found_with_or_without_the_suffix() {
        assert_eq!(find("kubelet"), Some(KUBELET));
        assert_eq!(find("containerd.service"), Some(CONTAINERD));
        assert_eq!(find("kube-apiserver"), None);
    }

    #[test]
    fn a_stop_and_start_write_systemds_lines() {
        let mut j = Journal::new("containerd");
        CONTAINERD.log_stopped(&mut j, SimTime(0));
        CONTAINERD.log_started(&mut j, SimTime(1_000));
        let lines: Vec<String> = j.lines("n").into_iter().map(|l| l.text).collect();
        assert_eq!(
            lines,
            vec![
                "Sep 01 00:00:00 n systemd[1]: Stopping containerd.service - containerd container runtime...",
                "Sep 01 00:00:00 n systemd[1]: containerd.service: Deactivated successfully.",
                "Sep 01 00:00:00 n systemd[1]: Stopped containerd.service - containerd container runtime.",
                "Sep 01 00:00:01 n systemd[1]: Starting containerd.service - containerd container runtime...",
                "Sep 01 00:00:01 n systemd[1]: Started containerd.service - containerd container runtime.",
            ]
        );
    }
}
