"""The official Kubernetes Python client against `kubeglass serve`: the kubeconfig serve wrote ($KUBECONFIG),
then list, create, patch, watch, read logs, exec and delete, printing one line per check for tests/serve.rs.
Exits non-zero on the first thing that does not hold."""

import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.stream import stream


def main() -> int:
    config.load_kube_config()
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    nodes = sorted(n.metadata.name for n in core.list_node().items)
    print("nodes", " ".join(nodes))

    system = core.list_namespaced_pod("kube-system", label_selector="k8s-app=kube-dns")
    print("coredns pods", len(system.items), " ".join(sorted(p.status.phase for p in system.items)))

    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings"), data={"mode": "fast"})
    created = core.create_namespaced_config_map("default", cm)
    print("created", created.metadata.name, "resourceVersion set:", bool(created.metadata.resource_version))

    patched = core.patch_namespaced_config_map("settings", "default", {"data": {"mode": "slow"}})
    print("patched", patched.data["mode"])

    try:
        core.create_namespaced_config_map("default", cm)
        print("created twice")
        return 1
    except ApiException as e:
        print("conflict", e.status, e.reason)

    w = watch.Watch()
    seen = []
    for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=5):
        seen.append((event["type"], event["object"].metadata.name))
        if event["object"].metadata.name == "settings":
            w.stop()
    print("watched", " ".join(f"{t}:{n}" for t, n in seen if n == "settings"))

    dns = apps.read_namespaced_deployment("coredns", "kube-system")
    print("deployment", dns.metadata.name, dns.spec.replicas, dns.status.available_replicas)

    container = client.V1Container(name="c", image="busybox", command=["sh", "-c", "echo hello from python"])
    spec = client.V1PodSpec(restart_policy="Never", containers=[container])
    core.create_namespaced_pod("default", client.V1Pod(metadata=client.V1ObjectMeta(name="greeter"), spec=spec))
    phase = None
    for _ in range(200):
        phase = core.read_namespaced_pod("greeter", "default").status.phase
        if phase in ("Succeeded", "Failed"):
            break
        time.sleep(0.3)
    print("pod", phase)
    print("log", core.read_namespaced_pod_log("greeter", "default").strip())

    # exec over WebSocket (the client's stream module speaks v4.channel.k8s.io): output, then an exit code.
    web = client.V1Pod(metadata=client.V1ObjectMeta(name="shell"),
                       spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))
    core.create_namespaced_pod("default", web)
    for _ in range(200):
        if core.read_namespaced_pod("shell", "default").status.phase == "Running":
            break
        time.sleep(0.3)
    said = stream(core.connect_get_namespaced_pod_exec, "shell", "default", command=["cat", "/etc/hostname"],
                  stderr=True, stdin=False, stdout=True, tty=False)
    run = stream(core.connect_get_namespaced_pod_exec, "shell", "default",
                 command=["sh", "-c", "echo out; echo err >&2; exit 3"], stderr=True, stdin=False, stdout=True,
                 tty=False, _preload_content=False)
    run.run_forever(timeout=10)
    print("exec", said.strip(), run.read_stdout().strip(), run.read_stderr().strip(), run.returncode)

    core.delete_namespaced_config_map("settings", "default")
    try:
        core.read_namespaced_config_map("settings", "default")
        print("still there")
        return 1
    except ApiException as e:
        print("deleted", e.status)
    return 0


if __name__ == "__main__":
    sys.exit(main())
