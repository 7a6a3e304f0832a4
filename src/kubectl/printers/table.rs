//! Column layout. [`TabWriter`] reproduces Go's elastic tabstops (`text/tabwriter`, and the
//! `liggitt/tabwriter` fork kubectl uses, whose `RememberWidths` keeps columns from shrinking across
//! flushes, as `kubectl get -w` needs); [`Table`] is a finished `kubectl get` table (headers and
//! string cells) rendered through it with kubectl's settings: minimum cell width 6, padding 3, space
//! padding.
//!
//! Layout rule (as Go's tabwriter): a cell is text terminated by a tab; the last cell of a line is not
//! part of any column and is never padded. A column is a run of consecutive lines that all have a
//! cell in it; its width is the widest cell plus the padding (at least the minimum width).

use std::sync::Arc;

use super::util::format_labels;
use crate::api::Object;

/// One cell as the tabwriter sees it.
#[derive(Debug, Clone)]
struct Cell {
    text: String,
    width: usize,
}

/// Go's tabwriter, formatting whole buffers at a time.
#[derive(Debug, Clone)]
pub struct TabWriter {
    minwidth: usize,
    padding: usize,
    remember: bool,
    maxwidths: Vec<usize>,
}

impl TabWriter {
    /// A writer with the given minimum cell width and padding (padding character is a space).
    /// `remember` keeps the widest width seen per column across [`TabWriter::format`] calls.
    pub fn new(minwidth: usize, padding: usize, remember: bool) -> TabWriter {
        TabWriter { minwidth, padding, remember, maxwidths: Vec::new() }
    }

    /// kubectl's table writer (`printers.GetNewTabWriter`).
    pub fn kubectl() -> TabWriter {
        TabWriter::new(6, 3, true)
    }

    /// kubectl describe's writer (`tabwriter.Writer.Init(buf, 0, 8, 2, ' ', 0)`).
    pub fn describe() -> TabWriter {
        TabWriter::new(0, 2, false)
    }

    /// Lays out `text` (tab-separated cells, newline-terminated lines) as one flushed buffer.
    pub fn format(&mut self, text: &str) -> String {
        let mut lines: Vec<Vec<Cell>> = Vec::new();
        let mut parts = text.split('\n').peekable();
        while let Some(line) = parts.next() {
            let is_last = parts.peek().is_none();
            if is_last && line.is_empty() {
                lines.push(Vec::new());
                break;
            }
            lines.push(line.split('\t').map(|t| Cell { text: t.to_string(), width: t.chars().count() }).collect());
        }
        let mut out = String::with_capacity(text.len() * 2);
        let mut widths = Vec::new();
        let n = lines.len();
        self.format_block(&mut out, &lines, &mut widths, 0, n);
        out
    }

    fn format_block(
        &mut self,
        out: &mut String,
        lines: &[Vec<Cell>],
        widths: &mut Vec<usize>,
        line0: usize,
        line1: usize,
    ) {
        let column = widths.len();
        let mut line0 = line0;
        let mut this = line0;
        while this < line1 {
            if column + 1 >= lines[this].len() {
                this += 1;
                continue;
            }
            // A cell exists in this column: print the lines before the block, then size the block.
            write_lines(out, lines, widths, line0, this);
            line0 = this;
            let mut width = self.minwidth;
            while this < line1 {
                let line = &lines[this];
                if column + 1 >= line.len() {
                    break;
                }
                width = width.max(line[column].width + self.padding);
                this += 1;
            }
            if self.remember {
                if self.maxwidths.len() < widths.len() {
                    let start = self.maxwidths.len();
                    self.maxwidths.extend_from_slice(&widths[start..]);
                }
                if self.maxwidths.len() == widths.len() {
                    self.maxwidths.push(width);
                } else if self.maxwidths[column] > width {
                    width = self.maxwidths[column];
                } else {
                    self.maxwidths[column] = width;
                }
            }
            widths.push(width);
            self.format_block(out, lines, widths, line0, this);
            widths.pop();
            line0 = this;
        }
        write_lines(out, lines, widths, line0, line1);
    }
}

fn write_lines(out: &mut String, lines: &[Vec<Cell>], widths: &[usize], line0: usize, line1: usize) {
    for (i, line) in lines.iter().enumerate().take(line1).skip(line0) {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(&cell.text);
            if j < widths.len() {
                for _ in cell.width..widths[j] {
                    out.push(' ');
                }
            }
        }
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
}

/// A `kubectl get` table: upper-cased headers and one string per cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as kubectl prints it alone. Nothing at all when there are no rows (kubectl then says
    /// `No resources found` on stderr, see [`no_resources_found`]).
    pub fn render(&self, no_headers: bool) -> String {
        render_tables(std::slice::from_ref(self), no_headers)
    }

    /// The tab-separated text kubectl hands to its tabwriter.
    pub fn tabbed(&self, no_headers: bool) -> String {
        let mut text = String::new();
        if self.rows.is_empty() {
            return text;
        }
        if !no_headers {
            text.push_str(&self.headers.join("\t"));
            text.push('\n');
        }
        for row in &self.rows {
            text.push_str(&row.join("\t"));
            text.push('\n');
        }
        text
    }

    /// Adds a first `NAMESPACE` column (`-A`), one value per row.
    pub fn prepend_column(&mut self, header: &str, values: Vec<String>) {
        self.headers.insert(0, header.to_string());
        for (row, v) in self.rows.iter_mut().zip(values) {
            row.insert(0, v);
        }
    }

    /// Appends a column (`--show-labels`, `-L key`), one value per row.
    pub fn append_column(&mut self, header: &str, values: Vec<String>) {
        self.headers.push(header.to_string());
        for (row, v) in self.rows.iter_mut().zip(values) {
            row.push(v);
        }
    }
}

/// `--show-labels`: a last `LABELS` column (`k=v,k2=v2` sorted by key, or `<none>`), one value per
/// object in row order.
pub fn with_labels(mut table: Table, objects: &[Arc<Object>]) -> Table {
    let values = objects.iter().map(|o| clean_cell(&format_labels(o.meta().labels.as_ref()))).collect();
    table.append_column("LABELS", values);
    table
}

/// `-A`: a first `NAMESPACE` column, one value per object in row order (for namespaced kinds only;
/// kubectl adds none for cluster-scoped ones).
pub fn with_namespace(mut table: Table, objects: &[Arc<Object>]) -> Table {
    let values = objects.iter().map(|o| clean_cell(o.namespace().unwrap_or(""))).collect();
    table.prepend_column("NAMESPACE", values);
    table
}

/// Several tables printed by one `kubectl get` (e.g. `kubectl get pods,svc` or `get all`): a blank line
/// between non-empty tables (none with `--no-headers`). kubectl resets its remembered column widths
/// for each resource type, so every table is laid out on its own.
pub fn render_tables(tables: &[Table], no_headers: bool) -> String {
    let mut out = String::new();
    for table in tables {
        let text = table.tabbed(no_headers);
        if text.is_empty() {
            continue;
        }
        if !out.is_empty() && !no_headers {
            out.push('\n');
        }
        out.push_str(&TabWriter::kubectl().format(&text));
    }
    out
}

/// kubectl's stderr line for an empty listing: `No resources found in <ns> namespace.` for a
/// namespaced listing, `No resources found` otherwise (all namespaces or cluster-scoped).
pub fn no_resources_found(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No resources found in {ns} namespace.\n"),
        None => "No resources found\n".to_string(),
    }
}

/// What kubectl does to a string cell before printing it: cut at the first line break (adding
/// `...`) and escape terminal control characters.
pub fn clean_cell(text: &str) -> String {
    let (cut, truncated) = match text.find(['\n', '\r', '\u{c}']) {
        Some(i) => (&text[..i], true),
        None => (text, false),
    };
    let mut s = escape_terminal(cut);
    if truncated {
        s.push_str("...");
    }
    s
}

/// `printers.EscapeTerminal`: `ESC` → `^[`, `CR` → `\r`.
pub fn escape_terminal(text: &str) -> String {
    text.replace('\u{1b}', "^[").replace('\r', "\\r")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(headers: &[&str], rows: &[&[&str]]) -> Table {
        Table {
            headers: headers.iter().map(|s| s.to_string()).collect(),
            rows: rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect(),
        }
    }

    #[test]
    fn columns_pad_to_the_widest_cell_plus_three_and_the_last_is_not_padded() {
        let t = table(
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &[
                &["web-7c5ddbdf54-x2x9q", "1/1", "Running", "0", "5m"],
                &["db", "0/1", "CrashLoopBackOff", "3 (45s ago)", "10m"],
            ],
        );
        assert_eq!(
            t.render(false),
            "NAME                   READY   STATUS             RESTARTS      AGE\n\
             web-7c5ddbdf54-x2x9q   1/1     Running            0             5m\n\
             db                     0/1     CrashLoopBackOff   3 (45s ago)   10m\n"
        );
        assert_eq!(
            t.render(true),
            "web-7c5ddbdf54-x2x9q   1/1   Running            0             5m\n\
             db                     0/1   CrashLoopBackOff   3 (45s ago)   10m\n"
        );
    }

    #[test]
    fn short_columns_still_take_the_minimum_width_of_six() {
        let t = table(&["A", "B"], &[&["x", "y"]]);
        assert_eq!(t.render(false), "A     B\nx     y\n");
    }

    #[test]
    fn an_empty_table_prints_nothing() {
        let t = table(&["NAME", "AGE"], &[]);
        assert_eq!(t.render(false), "");
        assert_eq!(no_resources_found(Some("default")), "No resources found in default namespace.\n");
        assert_eq!(no_resources_found(None), "No resources found\n");
    }

    #[test]
    fn each_resource_type_gets_its_own_layout_separated_by_a_blank_line() {
        let pods = table(
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &[&["pod/web-7c5ddbdf54-x2x9q", "1/1", "Running", "0", "5m"]],
        );
        let svcs = table(
            &["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
            &[&["service/kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP", "10m"]],
        );
        let empty = table(&["NAME", "DATA", "AGE"], &[]);
        let out = render_tables(&[pods.clone(), empty, svcs.clone()], false);
        assert_eq!(
            out,
            "NAME                       READY   STATUS    RESTARTS   AGE\n\
             pod/web-7c5ddbdf54-x2x9q   1/1     Running   0          5m\n\
             \n\
             NAME                 TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n\
             service/kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   10m\n"
        );
        assert_eq!(
            render_tables(&[pods, svcs], true),
            "pod/web-7c5ddbdf54-x2x9q   1/1   Running   0     5m\n\
             service/kubernetes   ClusterIP   10.96.0.1   <none>   443/TCP   10m\n"
        );
    }

    #[test]
    fn remembered_widths_never_shrink_across_flushes() {
        let mut w = TabWriter::kubectl();
        assert_eq!(w.format("NAME\tAGE\nlong-name-here\t1s\n"), "NAME             AGE\nlong-name-here   1s\n");
        assert_eq!(w.format("x\t2s\n"), "x                2s\n");
    }

    #[test]
    fn describe_layout_aligns_runs_of_lines_and_breaks_at_single_cell_lines() {
        let mut w = TabWriter::describe();
        let text = "Name:\tweb\nNamespace:\tdefault\nContainers:\n  web:\n    Image:\tnginx\n    Port:\t<none>\n";
        assert_eq!(
            w.format(text),
            "Name:       web\nNamespace:  default\nContainers:\n  web:\n    Image:  nginx\n    Port:   <none>\n"
        );
    }

    #[test]
    fn cells_are_cut_at_line_breaks_and_escaped() {
        assert_eq!(clean_cell("first\nsecond"), "first...");
        assert_eq!(clean_cell("a\u{1b}b"), "a^[b");
        assert_eq!(clean_cell("plain"), "plain");
    }
}
