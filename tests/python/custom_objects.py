"""The official Kubernetes Python client works with CustomResourceDefinitions on `kubeglass serve`, as a
controller under development would: create a definition, wait until it is Established, then create, list,
watch, patch the status of and delete custom objects through CustomObjectsApi, and see the objects go with
the definition. One line per check for tests/serve.rs; exits non-zero on the first thing that does not hold."""

import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "example.kubeglass.dev", "v1", "widgets"

DEFINITION = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"{PLURAL}.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": PLURAL, "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
        "versions": [{
            "name": VERSION,
            "served": True,
            "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {
                        "type": "object",
                        "required": ["size"],
                        "properties": {"size": {"type": "integer", "minimum": 1}, "colour": {"type": "string", "default": "blue"}},
                        "x-kubernetes-validations": [{"rule": "self.size <= 10", "message": "size must be at most 10"}],
                    },
                    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
                },
            }},
        }],
    },
}


def widget(name, size):
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Widget", "metadata": {"name": name}, "spec": {"size": size}}


def main() -> int:
    config.load_kube_config()
    ext = client.ApiextensionsV1Api()
    objects = client.CustomObjectsApi()

    ext.create_custom_resource_definition(DEFINITION)
    for _ in range(100):
        crd = ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        conditions = {c.type: c.status for c in (crd.status.conditions or [])}
        if conditions.get("Established") == "True":
            break
        time.sleep(0.1)
    print("established", conditions.get("NamesAccepted"), conditions.get("Established"))

    made = objects.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, widget("w1", 3))
    print("created", made["metadata"]["name"], "colour", made["spec"]["colour"], "generation", made["metadata"]["generation"])

    try:
        objects.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, widget("w2", 20))
        print("created an invalid widget")
        return 1
    except ApiException as e:
        print("refused", e.status, e.reason)

    listed = objects.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)
    print("listed", listed["kind"], [i["metadata"]["name"] for i in listed["items"]])

    status = objects.patch_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "w1", {"status": {"ready": True}})
    print("status", status["status"]["ready"], "generation", status["metadata"]["generation"])

    w = watch.Watch()
    seen = []
    for event in w.stream(objects.list_namespaced_custom_object, GROUP, VERSION, "default", PLURAL, timeout_seconds=3):
        seen.append(f"{event['type']}:{event['object']['metadata']['name']}")
        w.stop()
    print("watched", " ".join(seen))

    ext.delete_custom_resource_definition(f"{PLURAL}.{GROUP}")
    for _ in range(100):
        try:
            ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
            time.sleep(0.1)
        except ApiException as e:
            print("definition gone", e.status)
            break
    try:
        objects.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "w1")
        print("widget outlived its definition")
        return 1
    except ApiException as e:
        print("widget gone", e.status)
    return 0


if __name__ == "__main__":
    sys.exit(main())
