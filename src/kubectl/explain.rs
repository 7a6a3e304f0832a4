//! `kubectl explain RESOURCE[.field.path] [--recursive] [--api-version V]`, laid out as kubectl's OpenAPI v3
//! `plaintext` template lays out the documents the apiserver serves (GROUP/KIND/VERSION header, `FIELD: name
//! <type>`, DESCRIPTION wrapped at 76 columns and indented by four, FIELDS sorted by name with `<type>`,
//! ` -required-` and `enum:` lines), with the resource found as kubectl finds it.
//!
//! Every kind `kubectl api-resources` lists is covered, to any depth, from the API's schema table
//! (`crate::api::schema`), the one the apiserver writes its OpenAPI documents from; `tests/serve.rs` has the
//! real kubectl render those documents and compares. Where we have written no description, the output says
//! so the way kubectl does for a schema without one: `<empty>` under DESCRIPTION and `<no description>` in a
//! FIELDS list; nothing is invented to fill the gap.

use serde_json::Value;

use crate::api::{ResourceInfo, RESOURCES};

use super::common;
use super::{Context, Failure};
use crate::api::schema::Table;

/// One field of a type, as explain shows it.
struct Field<K> {
    name: String,
    /// kubectl's type string: `string`, `[]Container`, `map[string]string`, `Object`, `ObjectMeta`.
    display: String,
    required: bool,
    doc: Option<String>,
    values: Vec<String>,
    /// The type with fields the value (or its items, or its map values) has.
    target: Option<K>,
}

/// What explain reads a kind's structure from: the built-in kinds' schema table, or a custom resource's
/// OpenAPI document as the apiserver serves it.
trait Schema {
    type Key: Clone + PartialEq;
    fn type_doc(&self, key: &Self::Key) -> Option<String>;
    /// The type's fields, sorted by name.
    fn fields(&self, key: &Self::Key) -> Vec<Field<Self::Key>>;
}

impl<'t> Schema for Table<'t> {
    type Key = &'t str;

    fn type_doc(&self, key: &&'t str) -> Option<String> {
        Table::type_doc(self, key).map(str::to_string)
    }

    fn fields(&self, key: &&'t str) -> Vec<Field<&'t str>> {
        Table::fields(self, key)
            .into_iter()
            .map(|f| Field {
                name: f.name.to_string(),
                display: f.display_type().to_string(),
                required: f.required,
                doc: self.field_doc(key, f.name).map(str::to_string),
                values: self.enumeration(key, f.name).into_iter().map(str::to_string).collect(),
                target: self.target(&f),
            })
            .collect()
    }
}

/// A custom resource's OpenAPI v3 document: schemas are nodes of it, references resolved.
struct OpenApi(Value);

impl OpenApi {
    /// A schema node with its `$ref` (bare, or the one `allOf` wrapping that lets a field carry a
    /// description) resolved, and the name of the type it refers to.
    fn resolve<'a>(&'a self, node: &'a Value) -> (&'a Value, Option<&'a str>) {
        let reference = node["$ref"].as_str().or_else(|| node["allOf"][0]["$ref"].as_str());
        match reference.and_then(|r| r.strip_prefix("#/components/schemas/")) {
            Some(name) => (&self.0["components"]["schemas"][name], name.rsplit('.').next()),
            None => (node, None),
        }
    }

    fn display(&self, node: &Value) -> String {
        let (resolved, name) = self.resolve(node);
        if let Some(name) = name {
            return name.to_string();
        }
        match resolved["type"].as_str() {
            Some("array") => format!("[]{}", self.display(&resolved["items"])),
            Some("object") if resolved["additionalProperties"].is_object() => {
                format!("map[string]{}", self.display(&resolved["additionalProperties"]))
            }
            Some("object") | None if resolved["x-kubernetes-int-or-string"] != Value::Bool(true) => "Object".into(),
            None => "IntOrString".into(),
            Some(other) => other.to_string(),
        }
    }

    fn target(&self, node: &Value) -> Option<Value> {
        let (resolved, _) = self.resolve(node);
        match resolved["type"].as_str() {
            Some("array") => self.target(&resolved["items"]),
            Some("object") if resolved["additionalProperties"].is_object() => {
                self.target(&resolved["additionalProperties"])
            }
            _ if resolved["properties"].as_object().is_some_and(|p| !p.is_empty()) => Some(resolved.clone()),
            _ => None,
        }
    }
}

impl Schema for OpenApi {
    type Key = Value;

    fn type_doc(&self, key: &Value) -> Option<String> {
        key["description"].as_str().map(str::to_string)
    }

    fn fields(&self, key: &Value) -> Vec<Field<Value>> {
        let required: Vec<&str> = key["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let mut out: Vec<Field<Value>> = key["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, node)| Field {
                name: name.clone(),
                display: self.display(node),
                required: required.contains(&name.as_str()),
                doc: node["description"].as_str().map(str::to_string),
                values: node["enum"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| match v.as_str() {
                        Some("") => "\"\"".to_string(),
                        Some(s) => s.to_string(),
                        None => v.to_string(),
                    })
                    .collect(),
                target: self.target(node),
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

pub async fn explain(ctx: &Context) -> Result<(), Failure> {
    let args = ctx.args.operands(1);
    let target = match args {
        [] => {
            return Err(Failure(
                "error: You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n".into(),
            ))
        }
        [one] => one.clone(),
        _ => return Err(Failure("error: We accept only this format: explain RESOURCE\n".into())),
    };
    match ctx.args.get(&["o", "output"]).unwrap_or("plaintext") {
        "plaintext" => {}
        other => return Err(common::error(format!("unrecognized format: {other}"))),
    }
    // kubectl's SplitAndParseResourceRequestWithMatchingPrefix: of the resources the first word names, in
    // the mapper's priority order (the core group first), the first whose `resource.group` begins the
    // argument is meant and what follows it is the field path; when none does, the first, with every word
    // after the first as the path. So `events.events.k8s.io` is the core Event's field path `events.k8s.io`.
    let word = target.split('.').next().unwrap_or_default().to_ascii_lowercase();
    let mut candidates: Vec<&'static ResourceInfo> = RESOURCES
        .iter()
        .filter(|r| {
            r.discovered()
                && (r.resource == word
                    || r.singular == word
                    || r.short_names.contains(&word.as_str())
                    || r.kind.name().eq_ignore_ascii_case(&word))
        })
        .collect();
    if candidates.is_empty() {
        // A resource the built-in kinds do not name: the server's discovery may know it.
        let discovered = super::discovery::discover(ctx).await?;
        candidates.extend(super::discovery::find(&discovered, &word).map(super::discovery::Discovered::row));
    }
    let Some(first) = candidates.first().copied() else {
        return Err(Failure(format!("the server doesn't have a resource type {word:?}")));
    };
    let wanted = ctx.args.get(&["api-version"]);
    let with_prefix = match wanted {
        None => candidates.iter().find(|r| target.starts_with(&r.qualified())),
        Some(version) => candidates.iter().find(|r| r.api_version() == version),
    };
    let after_word = &target[target.find('.').unwrap_or(target.len())..];
    let (info, path) = match (with_prefix, wanted) {
        (Some(r), None) => (*r, &target[r.qualified().len()..]),
        (Some(r), Some(_)) => (*r, after_word),
        (None, _) => (first, after_word),
    };
    let path: Vec<String> =
        path.trim_end_matches('.').split('.').filter(|s| !s.is_empty()).map(str::to_string).collect();
    if let Some(version) = wanted.filter(|v| *v != info.api_version()) {
        let (group, bare) = version.split_once('/').unwrap_or(("", version));
        let served = RESOURCES.iter().any(|r| r.discovered() && r.api_version() == version)
            || super::discovery::discover(ctx).await?.iter().any(|d| d.group == group && d.version == bare);
        if !served {
            // The RESTMapper knows no such group-version.
            return Err(common::error(format!(
                "couldn't find resource for \"{group}/{bare}, Resource={}\"",
                info.resource
            )));
        }
        // The template looks for the resource's paths in the asked group-version's document.
        let (group, version) = (group, bare);
        return Err(common::error(format!(
            "GVR ({group}/{version}, Resource={}) not found in OpenAPI schema",
            info.resource
        )));
    }
    let kind = info.kind.name();
    let not_found = || common::error(format!("GVK {}, Kind={kind} not found in OpenAPI schema", info.api_version()));
    if let crate::api::Kind::Custom(_) = info.kind {
        // kubectl reads the group-version's document the apiserver serves.
        let mut req = ctx.request(crate::api::Verb::Get, crate::api::Kind::Namespace.info());
        req.non_resource_path = Some(format!("/openapi/v3/apis/{}/{}", info.group, info.version));
        let doc = match ctx.call(req).await? {
            crate::api::ApiResponse::Raw { body, .. } => serde_json::from_str(&body).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let schema = OpenApi(doc);
        let root = schema.0["components"]["schemas"].as_object().and_then(|schemas| {
            schemas.values().find(|s| {
                s["x-kubernetes-group-version-kind"].as_array().is_some_and(|gvks| {
                    gvks.iter().any(|g| g["group"] == info.group && g["version"] == info.version && g["kind"] == kind)
                })
            })
        });
        let root = root.cloned().ok_or_else(not_found)?;
        return render(ctx, &schema, root, info, &path);
    }
    let table = Table::load();
    let root = table.root(&info.api_version(), kind).ok_or_else(not_found)?;
    render(ctx, &table, root, info, &path)
}

/// Prints the explanation of `path` under `root`, the kind `info`'s type in `schema`.
fn render<S: Schema>(
    ctx: &Context,
    schema: &S,
    root: S::Key,
    info: &ResourceInfo,
    path: &[String],
) -> Result<(), Failure> {
    let mut out = String::new();
    if !info.group.is_empty() {
        out.push_str(&format!("GROUP:      {}\n", info.group));
    }
    out.push_str(&format!("KIND:       {}\n", info.kind.name()));
    out.push_str(&format!("VERSION:    {}\n\n", info.version));
    let recursive = ctx.args.has(&["recursive"]);
    let mut doc = schema.type_doc(&root).map(|d| format!("{d}\n")).unwrap_or_default();
    let mut current = Some(root);
    for (i, step) in path.iter().enumerate() {
        let field = current.as_ref().and_then(|t| schema.fields(t).into_iter().find(|f| f.name == *step));
        let Some(field) = field else {
            // The template prints the header, finds nothing along the path, and names the path's last
            // field whichever step failed.
            ctx.api.print(&out[..out.find("\n\n").map_or(out.len(), |i| i + 2)]);
            let last = path.last().map_or(step.as_str(), String::as_str);
            return Err(common::error(format!("field {last:?} does not exist")));
        };
        current = field.target.clone();
        doc = [field.doc.clone(), current.as_ref().and_then(|t| schema.type_doc(t))]
            .into_iter()
            .flatten()
            .map(|d| format!("{d}\n"))
            .collect();
        if i + 1 == path.len() {
            out.push_str(&format!("FIELD: {} <{}>\n", field.name, field.display));
            if !field.values.is_empty() {
                out.push_str("ENUM:");
                for e in &field.values {
                    out.push_str("\n    ");
                    out.push_str(e);
                }
            }
            out.push_str("\n\n");
        }
    }
    if doc.is_empty() {
        doc = "<empty>".to_string();
    }
    out.push_str("DESCRIPTION:\n");
    out.push_str(&indent(&wrap(&doc, 76), 4));
    out.push('\n');
    if let Some(t) = current.filter(|t| !schema.fields(t).is_empty()) {
        out.push_str("FIELDS:\n");
        field_list(&mut out, schema, &t, 1, recursive, &mut Vec::new());
    }
    out.push('\n');
    ctx.api.print(&out);
    Ok(())
}

/// The FIELDS list at `level` (two spaces of indentation per level): with descriptions, or with `--recursive`
/// one line per field and the fields of fields below it (a type already being listed further up is not
/// listed again, as kubectl stops at a cycle).
fn field_list<S: Schema>(
    out: &mut String,
    schema: &S,
    key: &S::Key,
    level: usize,
    recursive: bool,
    seen: &mut Vec<S::Key>,
) {
    if seen.contains(key) {
        return;
    }
    seen.push(key.clone());
    let pad = level * 2;
    for field in schema.fields(key) {
        out.push_str(&" ".repeat(pad));
        out.push_str(&field.name);
        out.push_str(&format!("\t<{}>", field.display));
        if field.required {
            out.push_str(" -required-");
        }
        if !field.values.is_empty() {
            out.push('\n');
            out.push_str(&" ".repeat(pad));
            out.push_str("enum: ");
            for (i, e) in field.values.iter().enumerate() {
                if i >= 4 {
                    out.push_str(", ....");
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(e);
            }
        }
        out.push('\n');
        if recursive {
            if let Some(sub) = &field.target {
                field_list(out, schema, sub, level + 1, recursive, seen);
            }
        } else {
            let doc = field.doc.as_deref().unwrap_or("<no description>");
            out.push_str(&indent(&wrap(doc, 78 - pad), pad + 2));
            out.push_str("\n\n");
        }
    }
    seen.pop();
}

/// sprig's `indent`: the pad at the start and after every newline.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

/// The template's `wrap`: kubectl's word-wrap writer (github.com/mitchellh/go-wordwrap's WrapString).
/// Lines break only at whitespace, before the word that would pass `limit` characters; a newline in the
/// text ends a line and starts the count afresh; a word longer than the limit stays whole; the spaces at a
/// break are dropped.
fn wrap(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / limit.max(1));
    let mut current = 0;
    let (mut word, mut space) = (String::new(), String::new());
    // A line ends (at a newline or the end of the text): the pending word is kept with its spaces, the
    // spaces alone only if they fit.
    let end_line = |out: &mut String, word: &mut String, space: &mut String, current: usize| {
        if !word.is_empty() || current + space.chars().count() <= limit {
            out.push_str(space);
            out.push_str(word);
        }
        word.clear();
        space.clear();
    };
    for c in text.chars() {
        if c == '\n' {
            end_line(&mut out, &mut word, &mut space, current);
            out.push('\n');
            current = 0;
        } else if c.is_whitespace() {
            if space.is_empty() || !word.is_empty() {
                current += space.chars().count() + word.chars().count();
                out.push_str(&space);
                out.push_str(&word);
                word.clear();
                space.clear();
            }
            space.push(c);
        } else {
            word.push(c);
            let word_len = word.chars().count();
            if current + space.chars().count() + word_len > limit && word_len < limit {
                out.push('\n');
                current = 0;
                space.clear();
            }
        }
    }
    end_line(&mut out, &mut word, &mut space, current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_the_last_space_within_the_width() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(wrap("short", 76), "short");
        assert_eq!(wrap("averyveryverylongword tail", 5), "averyveryverylongword\ntail");
        // A newline ends the line: what follows is counted from the start of the next.
        assert_eq!(wrap("aaa bbb\nccc ddd eee", 7), "aaa bbb\nccc ddd\neee");
        assert_eq!(wrap("aaa   \nb", 4), "aaa\nb", "spaces that would pass the limit before a newline are dropped");
    }
}
