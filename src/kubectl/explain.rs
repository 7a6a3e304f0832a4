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

use crate::api::RESOURCES;

use super::common;
use super::{Context, Failure};
use crate::api::schema::Table;

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
    // kubectl's SplitAndParseResourceRequestWithMatchingPrefix: of the resources the first word names, in
    // the mapper's priority order (the core group first), the first whose `resource.group` begins the
    // argument is meant and what follows it is the field path; when none does, the first, with every word
    // after the first as the path. So `events.events.k8s.io` is the core Event's field path `events.k8s.io`.
    let word = target.split('.').next().unwrap_or_default().to_ascii_lowercase();
    let candidates: Vec<_> = RESOURCES
        .iter()
        .filter(|r| {
            r.discovered()
                && (r.resource == word
                    || r.singular == word
                    || r.short_names.contains(&word.as_str())
                    || r.kind.name().eq_ignore_ascii_case(&word))
        })
        .collect();
    let Some(first) = candidates.first() else {
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
        (None, _) => (*first, after_word),
    };
    let path: Vec<String> =
        path.trim_end_matches('.').split('.').filter(|s| !s.is_empty()).map(str::to_string).collect();
    if let Some(version) = wanted.filter(|v| *v != info.api_version()) {
        // The template looks for the resource's paths in the asked group-version's document.
        let (group, version) = version.split_once('/').unwrap_or(("", version));
        return Err(common::error(format!(
            "GVR ({group}/{version}, Resource={}) not found in OpenAPI schema",
            info.resource
        )));
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
            // The template prints the header, finds nothing along the path, and names the path's last
            // field whichever step failed.
            ctx.api.print(&out[..out.find("\n\n").map_or(out.len(), |i| i + 2)]);
            let last = path.last().map_or(step.as_str(), String::as_str);
            return Err(common::error(format!("field {last:?} does not exist")));
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
