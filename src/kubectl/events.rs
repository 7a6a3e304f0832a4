//! `kubectl events`: the events of a namespace (or all, with `-A`), oldest first, optionally only those
//! of one object (`--for kind/name`) or of some types (`--types=Warning`).

use crate::api::{ApiResponse, Kind, Verb};

use super::printers::get::{events_table, no_events_found};
use super::{Context, Failure};

pub async fn events(ctx: &Context) -> Result<(), Failure> {
    let all = ctx.all_namespaces();
    let ns = ctx.namespace();
    let namespace = if all { None } else { Some(ns.as_str()) };
    let mut req = ctx.request(Verb::List, Kind::Event.info()).namespace(namespace);
    if let Some(target) = ctx.args.get(&["for"]) {
        let (kind, name) = target
            .split_once('/')
            .ok_or_else(|| Failure(format!("error: --for must be in resource/name form, got {target:?}")))?;
        let info = super::resource(kind)?;
        req.params.field_selector =
            Some(format!("involvedObject.kind={},involvedObject.name={name}", info.kind.name()));
    }
    let ApiResponse::List { items, .. } = ctx.call(req).await? else { return Ok(()) };
    let types: Vec<String> =
        ctx.args.all(&["types"]).iter().flat_map(|t| t.split(',').map(str::to_string).collect::<Vec<_>>()).collect();
    let items: Vec<_> = items
        .into_iter()
        .filter(|o| match o.as_ref() {
            crate::api::Object::Event(e) => {
                types.is_empty() || types.iter().any(|t| Some(t.as_str()) == e.type_.as_deref())
            }
            _ => false,
        })
        .collect();
    if items.is_empty() {
        ctx.api.print(&no_events_found(namespace));
        return Ok(());
    }
    let table = events_table(&items, ctx.api.now(), all);
    ctx.api.print(&table.render(ctx.args.has(&["no-headers"])));
    Ok(())
}
