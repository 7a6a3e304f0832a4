//! `kubectl get`: one object or a list, from one namespace or all, filtered by label and field
//! selectors, printed as a table (`-o wide`, `--show-labels`, `--no-headers`) or as yaml, json or names.

use std::sync::Arc;

use crate::api::{ApiResponse, Object, Verb};

use super::printers;
use super::{resource, Context, Failure};

pub async fn get(ctx: &Context) -> Result<(), Failure> {
    let words = &ctx.args.positional[1..];
    let Some(first) = words.first() else {
        return Err(Failure(
            "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples".into(),
        ));
    };
    let (type_name, names): (String, Vec<String>) = match first.split_once('/') {
        Some((t, n)) => (t.to_string(), std::iter::once(n.to_string()).chain(words[1..].iter().cloned()).collect()),
        None => (first.clone(), words[1..].to_vec()),
    };
    let info = resource(&type_name)?;
    let ns = ctx.namespace();
    let all = ctx.all_namespaces() && names.is_empty();
    let namespace = if all || !info.namespaced { None } else { Some(ns.as_str()) };
    let mut objects: Vec<Arc<Object>> = Vec::new();
    let mut errors = Vec::new();
    if names.is_empty() {
        let mut req = ctx.request(Verb::List, info).namespace(namespace);
        req.params.label_selector = ctx.args.get(&["l", "selector"]).map(str::to_string);
        req.params.field_selector = ctx.args.get(&["field-selector"]).map(str::to_string);
        if let ApiResponse::List { items, .. } = ctx.call(req).await? {
            objects = items;
        }
    } else {
        for name in &names {
            let req = ctx.request(Verb::Get, info).namespace(namespace).name(name);
            match ctx.call(req).await {
                Ok(ApiResponse::Object(o)) => objects.push(o),
                Ok(_) => {}
                Err(Failure(line)) => errors.push(line),
            }
        }
    }
    if let Some(field) = ctx.args.get(&["sort-by"]) {
        objects = sort_by(objects, field)?;
    }
    let format = printers::output::OutputFormat::parse(ctx.args.get(&["o", "output"]).unwrap_or(""))
        .map_err(|e| Failure(format!("error: {e}")))?;
    if objects.is_empty() && names.is_empty() {
        ctx.api.print(&printers::table::no_resources_found(namespace));
    } else if !objects.is_empty() {
        let label_columns = ctx
            .args
            .all(&["L", "label-columns"])
            .iter()
            .flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect();
        let opts = printers::output::PrintOptions {
            single: names.len() == 1,
            no_headers: ctx.args.has(&["no-headers"]),
            show_managed_fields: ctx.args.has(&["show-managed-fields"]),
            get: printers::get::GetOptions {
                wide: false,
                all_namespaces: all && info.namespaced,
                show_kind: false,
                show_labels: ctx.args.has(&["show-labels"]),
                label_columns,
            },
        };
        let text = printers::output::print_objects(info.kind, &objects, &format, ctx.api.now(), &opts)
            .map_err(|e| Failure(format!("error: {e}")))?;
        ctx.api.print(&text);
    }
    match errors.pop() {
        Some(line) => {
            for e in errors {
                ctx.println(&e);
            }
            Err(Failure(line))
        }
        None => Ok(()),
    }
}

/// `--sort-by=<jsonpath>`: objects ordered by the field's value (numbers numerically, anything else as text,
/// which orders RFC 3339 timestamps by time); objects without the field come first, as kubectl puts them.
fn sort_by(objects: Vec<Arc<Object>>, field: &str) -> Result<Vec<Arc<Object>>, Failure> {
    let template = if field.starts_with('{') { field.to_string() } else { format!("{{{field}}}") };
    let path = printers::jsonpath::JsonPath::parse(&template).map_err(|e| Failure(format!("error: {e}")))?;
    let mut keyed: Vec<(String, Arc<Object>)> =
        objects.into_iter().map(|o| (path.execute(&o.to_json(), true).unwrap_or_default(), o)).collect();
    if !keyed.is_empty() && keyed.iter().all(|(k, _)| k.is_empty()) {
        return Err(Failure(format!("error: couldn't find any field with path {template:?} in the list of objects")));
    }
    keyed.sort_by(|(a, _), (b, _)| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    });
    Ok(keyed.into_iter().map(|(_, o)| o).collect())
}
