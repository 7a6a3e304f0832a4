//! `kubectl get`: one object or a list, from one namespace or all, filtered by label and field
//! selectors, printed as a table (`-o wide`, `--show-labels`, `--no-headers`) or as yaml, json or names.
//! Several types (`get pv,pvc`, `get all`, `get deploy/web svc/web`) print one table per type, a blank
//! line between them, and `kind/name` names once the objects found are of more than one kind. `--raw PATH`
//! is [`super::raw`].

use std::sync::Arc;

use crate::api::{ApiResponse, Object, ResourceInfo, Verb, RESOURCES};

use super::discovery::resolve;
use super::printers;
use super::{Context, Failure};

/// What one `kubectl get` asks for: resource types in order, each with the names asked (none: a listing).
type Targets = Vec<(&'static ResourceInfo, Vec<String>)>;

/// Splits the arguments after `get` as kubectl's resource builder does: `TYPE[,TYPE…] [NAME…]` or only
/// `TYPE/NAME` words; `all` is the category of workload types.
async fn targets(ctx: &Context, words: &[String]) -> Result<Targets, Failure> {
    let slashed = words.iter().filter(|w| w.contains('/')).count();
    if slashed > 0 && slashed != words.len() {
        return Err(super::common::error(super::common::TYPE_AND_TYPE_NAME));
    }
    let mut out: Targets = Vec::new();
    if slashed > 0 {
        for word in words {
            let parts: Vec<&str> = word.split('/').collect();
            if parts.len() != 2 {
                return Err(Failure("error: arguments in resource/name form may not have more than one slash".into()));
            }
            let (type_name, name) = (parts[0], parts[1]);
            if type_name.is_empty() || name.is_empty() || type_name.contains(',') {
                return Err(Failure(
                    "error: arguments in resource/name form must have a single resource and name".into(),
                ));
            }
            let info = resolve(ctx, type_name).await?;
            match out.last_mut() {
                Some((last, names)) if std::ptr::eq(*last, info) => names.push(name.to_string()),
                _ => out.push((info, vec![name.to_string()])),
            }
        }
        return Ok(out);
    }
    let names = words[1..].to_vec();
    for type_name in words[0].split(',').filter(|t| !t.is_empty()) {
        let infos: Vec<&'static ResourceInfo> = if type_name.eq_ignore_ascii_case("all") {
            RESOURCES.iter().filter(|r| r.in_all).collect()
        } else {
            vec![resolve(ctx, type_name).await?]
        };
        for info in infos {
            if !out.iter().any(|(seen, _)| std::ptr::eq(*seen, info)) {
                out.push((info, names.clone()));
            }
        }
    }
    Ok(out)
}

pub async fn get(ctx: &Context) -> Result<(), Failure> {
    let words = &ctx.args.positional[1..];
    if let Some(raw) = ctx.args.get(&["raw"]) {
        if !words.is_empty() {
            return Err(Failure("error: arguments may not be passed when --raw is specified".into()));
        }
        if ctx.args.has(&["w", "watch"]) || ctx.args.has(&["watch-only"]) || ctx.args.get(&["l", "selector"]).is_some()
        {
            return Err(Failure(
                "error: --raw may not be specified with other flags that filter the server request or alter the output"
                    .into(),
            ));
        }
        if ctx.args.get(&["o", "output"]).is_some_and(|o| !o.is_empty()) {
            return Err(Failure("error: --raw and --output are mutually exclusive".into()));
        }
        return super::raw::get_raw(ctx, raw).await;
    }
    if words.is_empty() {
        return Err(Failure(
            "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples".into(),
        ));
    }
    let targets = targets(ctx, words).await?;
    let format = printers::output::OutputFormat::parse(ctx.args.get(&["o", "output"]).unwrap_or(""))
        .map_err(|e| Failure(format!("error: {e}")))?;
    let ns = ctx.namespace();
    let named = targets.iter().any(|(_, names)| !names.is_empty());
    let all = ctx.all_namespaces() && !named;
    // (type, object) in the order kubectl's builder visits them.
    let mut found: Vec<(&'static ResourceInfo, Arc<Object>)> = Vec::new();
    // The types whose lists came back: each is one Table to kubectl, empty or not.
    let mut listed: Vec<&'static ResourceInfo> = Vec::new();
    let mut errors = Vec::new();
    let chunk = chunk_size(ctx)?;
    // A custom resource printed as a table is read as the apiserver's Table: its columns and each object's
    // cells, by object uid.
    let tabular = matches!(format, printers::output::OutputFormat::Table | printers::output::OutputFormat::Wide);
    let mut server_tables: CustomTables = Vec::new();
    for (info, names) in &targets {
        let as_table = tabular && matches!(info.kind, crate::api::Kind::Custom(_));
        let namespace = if all || !info.namespaced { None } else { Some(ns.as_str()) };
        if names.is_empty() {
            // In pages of `--chunk-size` (500), each after the first naming the token of the one before.
            let mut token = None;
            loop {
                let mut req = ctx.request(Verb::List, info).namespace(namespace);
                req.params.label_selector = ctx.args.get(&["l", "selector"]).map(str::to_string);
                req.params.field_selector = ctx.args.get(&["field-selector"]).map(str::to_string);
                req.params.limit = chunk;
                req.params.continue_token = token.take();
                req.params.as_table = as_table;
                let (items, more) = match super::common::list_call(ctx, info, req).await? {
                    ApiResponse::List { items, more, .. } => (items, more),
                    ApiResponse::Table(t) => {
                        let more = t.list.as_ref().and_then(|(_, m)| m.clone());
                        (keep_table(&mut server_tables, info, *t), more)
                    }
                    _ => break,
                };
                if !listed.contains(info) {
                    listed.push(*info);
                }
                found.extend(items.into_iter().map(|o| (*info, o)));
                match more {
                    Some(more) => token = Some(more.token),
                    None => break,
                }
            }
        } else {
            for name in names {
                let mut req = ctx.request(Verb::Get, info).namespace(namespace).name(name);
                req.params.as_table = as_table;
                match ctx.call(req).await {
                    Ok(ApiResponse::Object(o)) => found.push((*info, o)),
                    Ok(ApiResponse::Table(t)) => {
                        found.extend(keep_table(&mut server_tables, info, *t).into_iter().map(|o| (*info, o)))
                    }
                    Ok(_) => {}
                    Err(Failure(line)) => errors.push(line),
                }
            }
        }
    }
    if let Some(field) = ctx.args.get(&["sort-by"]) {
        found = sort_by(found, field)?;
    }
    if found.is_empty() && !named {
        // kubectl names the namespace unless every type asked is cluster-scoped or -A was given.
        let namespaced = !all && targets.iter().any(|(info, _)| info.namespaced);
        ctx.api.print(&printers::table::no_resources_found(namespaced.then_some(ns.as_str())));
    } else if !found.is_empty() {
        let label_columns: Vec<String> = ctx
            .args
            .all(&["L", "label-columns"])
            .iter()
            .flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect();
        let single = targets.len() == 1 && targets[0].1.len() == 1;
        // kubectl's multipleGVKsRequested over what the builder visited: a Table per listed type (an empty
        // list counts) and each object fetched by name.
        let visited: Vec<&ResourceInfo> = listed.iter().copied().chain(found.iter().map(|(i, _)| *i)).collect();
        let show_kind = ctx.args.has(&["show-kind"]) || visited.iter().any(|info| !std::ptr::eq(*info, visited[0]));
        let no_headers = ctx.args.has(&["no-headers"]);
        let opts = |info: &ResourceInfo| printers::output::PrintOptions {
            single,
            no_headers,
            show_managed_fields: ctx.args.has(&["show-managed-fields"]),
            get: printers::get::GetOptions {
                wide: false,
                all_namespaces: all && info.namespaced,
                show_kind,
                show_labels: ctx.args.has(&["show-labels"]),
                label_columns: label_columns.clone(),
            },
        };
        let text = if matches!(format, printers::output::OutputFormat::Table | printers::output::OutputFormat::Wide) {
            // One table per run of objects of one type, laid out on its own, a blank line between them.
            let wide = format == printers::output::OutputFormat::Wide;
            let mut tables = Vec::new();
            for run in found.chunk_by(|a, b| std::ptr::eq(a.0, b.0)) {
                let info = run[0].0;
                let objects: Vec<Arc<Object>> = run.iter().map(|(_, o)| o.clone()).collect();
                let mut get = opts(info).get;
                get.wide = wide;
                match server_tables.iter().find(|(i, _, _)| std::ptr::eq(*i, info)) {
                    Some((_, columns, cells)) => {
                        let rows: Vec<(Vec<serde_json::Value>, Arc<Object>)> = objects
                            .iter()
                            .map(|o| (cells.get(&uid(o)).cloned().unwrap_or_default(), Arc::clone(o)))
                            .collect();
                        tables.push(printers::get::custom_table(info, columns, &rows, &get));
                    }
                    None => tables.push(printers::get::get_table(info.kind, &objects, ctx.api.now(), &get)),
                }
            }
            printers::render_tables(&tables, no_headers)
        } else {
            let objects: Vec<Arc<Object>> = found.iter().map(|(_, o)| o.clone()).collect();
            printers::output::print_objects(found[0].0.kind, &objects, &format, ctx.api.now(), &opts(found[0].0))
                .map_err(|e| Failure(format!("error: {e}")))?
        };
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

/// The apiserver's Tables of custom resources: per resource, its columns and each object's cells by uid.
type CustomTables = Vec<(
    &'static ResourceInfo,
    Arc<[crate::api::TableColumn]>,
    std::collections::BTreeMap<String, Vec<serde_json::Value>>,
)>;

fn uid(o: &Object) -> String {
    o.meta().uid.clone().unwrap_or_default()
}

/// Keeps a Table's columns and cells for printing; returns its objects.
fn keep_table(tables: &mut CustomTables, info: &'static ResourceInfo, table: crate::api::Table) -> Vec<Arc<Object>> {
    let index = match tables.iter().position(|(i, _, _)| std::ptr::eq(*i, info)) {
        Some(i) => i,
        None => {
            tables.push((info, Arc::clone(&table.columns), Default::default()));
            tables.len() - 1
        }
    };
    let mut objects = Vec::new();
    for (cells, o) in table.rows {
        tables[index].2.insert(uid(&o), cells);
        objects.push(o);
    }
    objects
}

/// `--sort-by=<jsonpath>`: objects ordered by the field's value (numbers numerically, anything else as text,
/// which orders RFC 3339 timestamps by time); objects without the field come first, as kubectl puts them.
fn sort_by<T>(objects: Vec<(T, Arc<Object>)>, field: &str) -> Result<Vec<(T, Arc<Object>)>, Failure> {
    let template = if field.starts_with('{') { field.to_string() } else { format!("{{{field}}}") };
    let path = printers::jsonpath::JsonPath::parse(&template).map_err(|e| Failure(format!("error: {e}")))?;
    let mut keyed: Vec<(String, (T, Arc<Object>))> =
        objects.into_iter().map(|o| (path.execute(&o.1.to_json(), true).unwrap_or_default(), o)).collect();
    if !keyed.is_empty() && keyed.iter().all(|(k, _)| k.is_empty()) {
        return Err(Failure(format!("error: couldn't find any field with path {template:?} in the list of objects")));
    }
    keyed.sort_by(|(a, _), (b, _)| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    });
    Ok(keyed.into_iter().map(|(_, o)| o).collect())
}

/// `--chunk-size`: the page size lists are read in (500; 0 reads each list whole).
fn chunk_size(ctx: &Context) -> Result<Option<i64>, Failure> {
    let Some(value) = ctx.args.get(&["chunk-size"]) else { return Ok(Some(500)) };
    let size: i64 = value.parse().map_err(|_| {
        Failure(format!(
            "Error: invalid argument {value:?} for \"--chunk-size\" flag: strconv.ParseInt: parsing {value:?}: invalid syntax\nSee 'kubectl get --help' for usage."
        ))
    })?;
    Ok((size > 0).then_some(size))
}
