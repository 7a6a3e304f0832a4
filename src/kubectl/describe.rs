//! `kubectl describe TYPE [NAME]`: reads the object and what its description shows beside it (its events,
//! a node's pods and lease, a deployment's replica sets, a service's EndpointSlices, a namespace's quotas)
//! with the same requests real kubectl makes, then prints kubectl's layout.

use std::sync::Arc;

use crate::api::{ApiResponse, Kind, Object, ResourceInfo, Verb};

use super::printers::describe::{describe as render, Related};
use super::{Context, Failure};

pub async fn describe(ctx: &Context) -> Result<(), Failure> {
    let words = &ctx.args.positional[1..];
    let Some(first) = words.first() else {
        return Err(Failure("error: You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.".into()));
    };
    let (info, names): (&'static ResourceInfo, Vec<String>) = match first.split_once('/') {
        Some((t, n)) => (super::discovery::resolve(ctx, t).await?, vec![n.to_string()]),
        None => (super::discovery::resolve(ctx, first).await?, words[1..].to_vec()),
    };
    let ns = ctx.namespace();
    let namespace = info.namespaced.then_some(ns.as_str());
    let objects: Vec<Arc<Object>> = if names.is_empty() {
        let mut req = ctx.request(Verb::List, info).namespace(namespace);
        req.params.label_selector = ctx.args.get(&["l", "selector"]).map(str::to_string);
        match ctx.call(req).await? {
            ApiResponse::List { items, .. } => items,
            _ => Vec::new(),
        }
    } else {
        let mut found = Vec::new();
        for name in &names {
            if let ApiResponse::Object(o) =
                ctx.call(ctx.request(Verb::Get, info).namespace(namespace).name(name)).await?
            {
                found.push(o);
            }
        }
        found
    };
    if objects.is_empty() && names.is_empty() {
        // kubectl names the namespace even for a cluster-scoped kind (its describe does not ask).
        let shown = (!ctx.all_namespaces()).then_some(ns.as_str());
        ctx.api.print(&super::printers::table::no_resources_found(shown));
        return Ok(());
    }
    let mut first_done = false;
    for obj in objects {
        let related = related(ctx, &obj).await;
        if first_done {
            ctx.println("");
            ctx.println("");
        }
        first_done = true;
        ctx.api.print(&render(&obj, &related, ctx.api.now()));
    }
    Ok(())
}

async fn list(
    ctx: &Context,
    kind: Kind,
    ns: Option<&str>,
    labels: Option<String>,
    fields: Option<String>,
) -> Vec<Arc<Object>> {
    let mut req = ctx.request(Verb::List, kind.info()).namespace(ns);
    req.params.label_selector = labels;
    req.params.field_selector = fields;
    match ctx.api.call(req).await {
        Ok(ApiResponse::List { items, .. }) => items,
        _ => Vec::new(),
    }
}

/// What describe shows beside the object, fetched as kubectl fetches it.
async fn related(ctx: &Context, obj: &Object) -> Related {
    let ns = obj.namespace().map(str::to_string);
    let name = obj.name().to_string();
    let mut r = Related::default();
    let event_fields = match obj.meta().uid.as_deref() {
        Some(uid) => format!(
            "involvedObject.name={name},involvedObject.namespace={},involvedObject.uid={uid}",
            ns.clone().unwrap_or_default()
        ),
        None => format!("involvedObject.name={name}"),
    };
    let events_ns = ns.clone().unwrap_or_else(|| "default".to_string());
    r.events = list(ctx, Kind::Event, Some(&events_ns), None, Some(event_fields)).await;
    match obj {
        Object::Node(_) => {
            // A node's events come with two UIDs: the controllers use the node's, the kubelet its name. kubectl
            // asks for both and merges them.
            let by_name = format!("involvedObject.name={name},involvedObject.namespace=,involvedObject.uid={name}");
            if obj.meta().uid.as_deref() != Some(name.as_str()) {
                r.events.extend(list(ctx, Kind::Event, Some(&events_ns), None, Some(by_name)).await);
            }
            r.pods = list(ctx, Kind::Pod, None, None, Some(format!("spec.nodeName={name}"))).await;
            if let Ok(ApiResponse::Object(lease)) = ctx
                .api
                .call(ctx.request(Verb::Get, Kind::Lease.info()).namespace(Some("kube-node-lease")).name(&name))
                .await
            {
                r.lease = Some(lease);
            }
        }
        Object::Deployment(_) => r.replica_sets = list(ctx, Kind::ReplicaSet, ns.as_deref(), None, None).await,
        Object::DaemonSet(ds) => {
            let selector = ds.spec.as_ref().map(|s| crate::api::selector::LabelSelector::from_api(&s.selector));
            let labels = selector.and_then(Result::ok).map(|s| s.to_string_form());
            r.pods = list(ctx, Kind::Pod, ns.as_deref(), labels, None).await;
        }
        Object::ReplicaSet(rs) => {
            let selector = rs.spec.as_ref().map(|s| crate::api::selector::LabelSelector::from_api(&s.selector));
            let labels = selector.and_then(Result::ok).map(|s| s.to_string_form());
            r.pods = list(ctx, Kind::Pod, ns.as_deref(), labels, None).await;
        }
        Object::ReplicationController(rc) => {
            let selector = rc.spec.as_ref().and_then(|s| s.selector.as_ref());
            let labels = selector.map(|m| m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","));
            r.pods = list(ctx, Kind::Pod, ns.as_deref(), labels.filter(|l| !l.is_empty()), None).await;
        }
        Object::Service(_) => {
            let labels = Some(format!("kubernetes.io/service-name={name}"));
            r.endpoint_slices = list(ctx, Kind::EndpointSlice, ns.as_deref(), labels, None).await;
        }
        Object::Ingress(ing) => {
            // Each backend's service and its EndpointSlices, read as describeBackendV1 reads them.
            let spec = ing.spec.clone().unwrap_or_default();
            let backends = spec.default_backend.iter().chain(
                spec.rules
                    .iter()
                    .flatten()
                    .flat_map(|r| r.http.iter().flat_map(|h| h.paths.iter().map(|p| &p.backend))),
            );
            for service in backends.filter_map(|b| b.service.as_ref()).map(|s| s.name.clone()) {
                if r.backends.contains_key(&service) {
                    continue;
                }
                let labels = Some(format!("kubernetes.io/service-name={service}"));
                r.endpoint_slices.extend(list(ctx, Kind::EndpointSlice, ns.as_deref(), labels, None).await);
                let got = ctx
                    .api
                    .call(ctx.request(Verb::Get, Kind::Service.info()).namespace(ns.as_deref()).name(&service))
                    .await;
                let found = match got {
                    Ok(ApiResponse::Object(o)) => Ok(o),
                    Ok(ApiResponse::Error(status)) => Err(status.message.clone()),
                    _ => Err(format!("services {service:?} not found")),
                };
                r.backends.insert(service, found);
            }
        }
        Object::Namespace(_) => {
            r.resource_quotas = list(ctx, Kind::ResourceQuota, Some(&name), None, None).await;
            r.limit_ranges = list(ctx, Kind::LimitRange, Some(&name), None, None).await;
        }
        _ => {}
    }
    r
}
