//! `kubectl explain RESOURCE[.field.path] [--recursive]`, laid out as kubectl v1.34's OpenAPI v3 `plaintext`
//! template lays it out (GROUP/KIND/VERSION header, `FIELD: name <type>`, DESCRIPTION wrapped at 76 columns
//! and indented by four, FIELDS sorted by name with `<type>`, ` -required-` and `enum:` lines).
//!
//! Every kind `kubectl api-resources` lists is covered, to any depth. The structure (types, fields,
//! kubectl's type strings, required markers) is `explain/types.txt`, derived from the `k8s-openapi` types
//! the engine stores by `explain/derive.rs`, whose test fails when the two drift apart. The prose is not the
//! API's: `explain/docs.txt` holds kubeglass's own short descriptions of the kinds and fields people look
//! up, and `explain/enums.txt` the allowed values of common enum fields. Where we have written no
//! description, the output says so the way kubectl does for a schema without one: `<empty>` under
//! DESCRIPTION and `<no description>` in a FIELDS list; nothing is invented to fill the gap.

mod table;

#[cfg(test)]
mod derive;

use crate::api::lookup;

use super::common;
use super::{Context, Failure};
use table::Table;

pub fn explain(ctx: &Context) -> Result<(), Failure> {
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
    let mut path = target.split('.').map(str::to_string).collect::<Vec<_>>();
    let resource_word = path.remove(0);
    // `deployments.apps.spec`, `events.events.k8s.io.note`: as kubectl, the longest prefix that names a
    // group-qualified resource is the resource, and the rest is the field path.
    let qualified = (1..=path.len()).rev().find_map(|n| {
        let name = std::iter::once(resource_word.clone()).chain(path[..n].iter().cloned()).collect::<Vec<_>>();
        lookup(&name.join(".")).filter(|i| i.group == name[1..].join(".")).map(|i| (i, n))
    });
    let info = match qualified {
        Some((i, n)) => {
            path.drain(..n);
            i
        }
        None => match lookup(&resource_word) {
            Some(i) => i,
            None => return Err(Failure(format!("the server doesn't have a resource type {resource_word:?}"))),
        },
    };
    if let Some(version) = ctx.args.get(&["api-version"]) {
        if version != info.api_version() {
            return Err(common::error(format!(
                "couldn't find resource for \"{}/{version}, Resource={}\"",
                info.group, info.resource
            )));
        }
    }
    let kind = info.kind.name();
    let table = Table::load();
    let Some(root) = table.root(&info.api_version(), kind) else {
        return Err(common::error(format!("GVK {}, Kind={kind} not found in OpenAPI schema", info.api_version())));
    };
    let mut out = String::new();
    if !info.group.is_empty() {
        out.push_str(&format!("GROUP:      {}\n", info.group));
    }
    out.push_str(&format!("KIND:       {kind}\n"));
    out.push_str(&format!("VERSION:    {}\n\n", info.version));
    let recursive = ctx.args.has(&["recursive"]);
    let mut current: Option<&str> = Some(root);
    let mut doc = table.type_doc(root).map(|d| format!("{d}\n")).unwrap_or_default();
    for (i, step) in path.iter().enumerate() {
        let Some(field) = current.and_then(|t| table.field(t, step)) else {
            return Err(common::error(format!("field {step:?} does not exist")));
        };
        let owner = current.unwrap_or_default();
        current = table.target(&field);
        doc = [table.field_doc(owner, field.name), current.and_then(|t| table.type_doc(t))]
            .into_iter()
            .flatten()
            .map(|d| format!("{d}\n"))
            .collect();
        if i + 1 == path.len() {
            out.push_str(&format!("FIELD: {} <{}>\n", field.name, field.display_type()));
            let values = table.enumeration(owner, field.name);
            if !values.is_empty() {
                out.push_str("ENUM:");
                for e in values {
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
    if let Some(t) = current.filter(|t| !table.fields(t).is_empty()) {
        out.push_str("FIELDS:\n");
        field_list(&mut out, &table, t, 1, recursive, &mut Vec::new());
    }
    out.push('\n');
    ctx.api.print(&out);
    Ok(())
}

/// The FIELDS list at `level` (two spaces of indentation per level): with descriptions, or with `--recursive`
/// one line per field and the fields of fields below it (a type already being listed further up is not
/// listed again, as kubectl stops at a cycle).
fn field_list<'t>(
    out: &mut String,
    table: &Table<'t>,
    key: &'t str,
    level: usize,
    recursive: bool,
    seen: &mut Vec<&'t str>,
) {
    if seen.contains(&key) {
        return;
    }
    seen.push(key);
    let pad = level * 2;
    for field in table.fields(key) {
        out.push_str(&" ".repeat(pad));
        out.push_str(field.name);
        out.push_str(&format!("\t<{}>", field.display_type()));
        if field.required {
            out.push_str(" -required-");
        }
        let values = table.enumeration(key, field.name);
        if !values.is_empty() {
            out.push('\n');
            out.push_str(&" ".repeat(pad));
            out.push_str("enum: ");
            for (i, e) in values.iter().enumerate() {
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
            if let Some(sub) = table.target(&field) {
                field_list(out, table, sub, level + 1, recursive, seen);
            }
        } else {
            let doc = table.field_doc(key, field.name).unwrap_or("<no description>");
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

/// sprig's `wrap` (goutils `Wrap`): break at the last space that keeps a line within `width`; words longer
/// than the width stay whole. Newlines in the text count as ordinary characters.
fn wrap(text: &str, width: usize) -> String {
    let s = text.as_bytes();
    let width = width.max(1);
    let mut out = String::new();
    let mut offset = 0;
    while s.len() - offset > width {
        if s[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(s.len());
        match text[offset..end].rfind(' ') {
            Some(space) => {
                out.push_str(&text[offset..offset + space]);
                out.push('\n');
                offset += space + 1;
            }
            None => match text[width + offset..].find(' ') {
                None => {
                    out.push_str(&text[offset..]);
                    offset = s.len();
                }
                Some(i) => {
                    let at = width + offset + i;
                    out.push_str(&text[offset..at]);
                    out.push('\n');
                    offset = at + 1;
                }
            },
        }
    }
    out.push_str(&text[offset..]);
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
    }
}
