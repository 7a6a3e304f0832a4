"""Asks `/api` and `/apis` for aggregated discovery (apidiscovery.k8s.io/v2) as client-go does, with the
official Python client's connection settings (KUBECONFIG), then again with the ETag it got: prints one JSON
line per answer (path, status, content type, ETag, and the group names and pods' entry of a 200)."""

import json

from kubernetes import client, config

ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


def ask(api, path, etag=None):
    headers = {"Accept": ACCEPT}
    if etag:
        headers["If-None-Match"] = etag
    try:
        raw = api.call_api(path, "GET", header_params=headers, auth_settings=["BearerToken"],
                           _preload_content=False, _return_http_data_only=False)[0]
    except client.exceptions.ApiException as e:
        # The client raises for anything but 2xx, a 304 Not Modified included.
        print(json.dumps({"path": path, "status": e.status, "etag": (e.headers or {}).get("ETag")}, sort_keys=True))
        return None
    out = {"path": path, "status": raw.status, "type": raw.headers.get("Content-Type"),
           "etag": raw.headers.get("ETag")}
    if raw.status == 200:
        body = json.loads(raw.data)
        out["kind"] = body["kind"]
        out["groups"] = [i["metadata"].get("name", "") for i in body["items"]]
        for item in body["items"]:
            for version in item["versions"]:
                for r in version["resources"]:
                    if r["resource"] == "pods":
                        out["pods"] = r
    print(json.dumps(out, sort_keys=True))
    return out.get("etag")


def main():
    config.load_kube_config()
    api = client.ApiClient()
    for path in ["/api", "/apis"]:
        etag = ask(api, path)
        ask(api, path, etag)


main()
