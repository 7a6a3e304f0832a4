//! Where things are in a scenario file, for error messages and [`Step::line`](super::Step::line).
//!
//! serde_yaml 0.9 reports a position only with an error: a value that deserialized fine carries no span.
//! So after the text has parsed, this module scans it once more, as text, and records for every key and
//! sequence item the position of the key (or the item's `-`) and of its value, under a path written the way
//! serde_yaml writes paths in its messages: `spec.steps[3].waitFor.timeout`.
//!
//! The scan is not a YAML parser. It follows the shapes YAML has in practice, which are the shapes a file that
//! already deserialized can have:
//! - block collections by indentation, including a sequence at the same indentation as its key
//!   (`steps:` then `- kubectl: …`) and compact mappings inside items (`- name: node01`);
//! - flow collections (`{name: node01, capacity: {cpu: "2"}}`, `[a, b]`) with a bracket-matching walk over the
//!   characters, across lines;
//! - block scalars (`|`, `>-`, …) and multi-line plain scalars, skipped by indentation; quoted scalars skipped
//!   to their closing quote, across lines; comments, tags, anchors and document markers.
//!
//! Lookups fall back to the nearest recorded ancestor, so every path has some position. Recording stops
//! past a depth and a total size, so hostile text costs bounded memory; nothing here can panic.

use std::collections::BTreeMap;

/// A 1-based line and column; columns count characters, as libyaml's marks do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    pub const START: Pos = Pos { line: 1, column: 1 };

    fn at(line_index: usize, char_index: usize) -> Pos {
        Pos { line: line_index + 1, column: char_index + 1 }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: Pos,
    value: Pos,
}

/// Positions of keys and items in one YAML text, by path.
#[derive(Debug, Clone)]
pub struct Locations {
    entries: BTreeMap<String, Entry>,
    /// The second occurrence of each path recorded twice (a duplicate key).
    duplicates: BTreeMap<String, Pos>,
    second_document: Option<Pos>,
    first_content: Pos,
}

/// Paths deeper than this are not recorded (their lookups fall back to an ancestor).
const MAX_DEPTH: usize = 24;
/// Keys longer than this (in characters) are not recorded.
const MAX_KEY_CHARS: usize = 256;
/// Once the recorded paths add up to this many bytes, recording stops.
const MAX_RECORDED_BYTES: usize = 4 << 20;

impl Locations {
    /// Scans `text`. Never fails: what it cannot follow, it does not record.
    pub fn scan(text: &str) -> Locations {
        let mut scanner = Scanner::new(text);
        scanner.run();
        Locations {
            entries: scanner.entries,
            duplicates: scanner.duplicates,
            second_document: scanner.second_document,
            first_content: scanner.first_content.unwrap_or(Pos::START),
        }
    }

    /// Where the key at `path` is (for an item: its `-`, or its first character in a flow sequence).
    pub fn key(&self, path: &str) -> Pos {
        self.lookup(path).map_or(self.first_content, |e| e.key)
    }

    /// Where the value at `path` starts (for a block collection: its first key or item).
    pub fn value(&self, path: &str) -> Pos {
        self.lookup(path).map_or(self.first_content, |e| e.value)
    }

    /// Whether `path` itself (not an ancestor) was recorded.
    pub fn has(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// Where `path` occurs a second time, if it is a duplicate key.
    pub fn duplicate(&self, path: &str) -> Option<Pos> {
        self.duplicates.get(path).copied()
    }

    /// Where a second YAML document starts (its `---`), if there is one.
    pub fn second_document(&self) -> Option<Pos> {
        self.second_document
    }

    /// The first character that is not blank, a comment or a directive.
    pub fn first_content(&self) -> Pos {
        self.first_content
    }

    fn lookup(&self, path: &str) -> Option<Entry> {
        let mut p = path;
        loop {
            if let Some(e) = self.entries.get(p) {
                return Some(*e);
            }
            if p.is_empty() {
                return None;
            }
            p = parent_path(p);
        }
    }
}

/// `a.b[2]` → `a.b`, `a.b` → `a`, `a` → ``.
pub fn parent_path(path: &str) -> &str {
    if path.ends_with(']') {
        if let Some(i) = path.rfind('[') {
            return &path[..i];
        }
    }
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

fn item_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

/// A block collection being read: its items' (or keys') column, and its path (None: not recorded).
struct Frame {
    column: usize,
    seq: bool,
    path: Option<String>,
    next_item: usize,
}

/// What the rest of a line after `key:` or `- ` turned out to be.
enum Inline {
    /// A block node starts at this column of the same line (`- name: x`, `- - a`): read it as a node.
    Node(usize),
    /// The node ended; go on at this line index.
    NextLine(usize),
}

struct Scanner {
    lines: Vec<Vec<char>>,
    stack: Vec<Frame>,
    /// A key or item whose value did not start on its own line: (its path, its column).
    pending: Option<(Option<String>, usize)>,
    entries: BTreeMap<String, Entry>,
    duplicates: BTreeMap<String, Pos>,
    recorded_bytes: usize,
    second_document: Option<Pos>,
    first_content: Option<Pos>,
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

impl Scanner {
    fn new(text: &str) -> Scanner {
        let lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).chars().collect()).collect();
        Scanner {
            lines,
            stack: Vec::new(),
            pending: None,
            entries: BTreeMap::new(),
            duplicates: BTreeMap::new(),
            recorded_bytes: 0,
            second_document: None,
            first_content: None,
        }
    }

    fn ch(&self, line: usize, col: usize) -> Option<char> {
        self.lines.get(line).and_then(|l| l.get(col)).copied()
    }

    fn indent(&self, line: usize) -> usize {
        self.lines.get(line).map_or(0, |l| l.iter().take_while(|c| **c == ' ').count())
    }

    /// Blank or only a comment.
    fn is_empty_line(&self, line: usize) -> bool {
        let ind = self.indent(line);
        match self.lines.get(line) {
            None => true,
            Some(l) => {
                let rest = l.get(ind..).unwrap_or(&[]);
                let first = rest.iter().find(|c| !is_blank(**c));
                matches!(first, None | Some('#'))
            }
        }
    }

    /// Whether the line holds nothing from `col` on (spaces, then end or a comment).
    fn ends_at(&self, line: usize, col: usize) -> bool {
        let mut c = col;
        while let Some(ch) = self.ch(line, c) {
            if is_blank(ch) {
                c += 1;
            } else {
                return ch == '#';
            }
        }
        true
    }

    fn skip_blanks(&self, line: usize, mut col: usize) -> usize {
        while self.ch(line, col).is_some_and(is_blank) {
            col += 1;
        }
        col
    }

    fn record(&mut self, path: &Option<String>, key: Pos, value: Pos) {
        let Some(path) = path else { return };
        if self.recorded_bytes > MAX_RECORDED_BYTES {
            return;
        }
        self.recorded_bytes += path.len();
        if self.entries.contains_key(path) {
            self.duplicates.entry(path.clone()).or_insert(key);
        } else {
            self.entries.insert(path.clone(), Entry { key, value });
        }
    }

    fn set_value(&mut self, path: &Option<String>, value: Pos) {
        if let Some(e) = path.as_ref().and_then(|p| self.entries.get_mut(p)) {
            e.value = value;
        }
    }

    fn child(&self, parent: &Option<String>, key: &str) -> Option<String> {
        let parent = parent.as_ref()?;
        if self.depth_exceeded() || key.chars().count() > MAX_KEY_CHARS {
            return None;
        }
        Some(child_path(parent, key))
    }

    fn item(&self, parent: &Option<String>, index: usize) -> Option<String> {
        let parent = parent.as_ref()?;
        if self.depth_exceeded() {
            return None;
        }
        Some(item_path(parent, index))
    }

    fn depth_exceeded(&self) -> bool {
        self.stack.len() > MAX_DEPTH
    }

    fn run(&mut self) {
        let mut i = 0;
        let mut seen_content = false;
        while i < self.lines.len() {
            if self.is_empty_line(i) {
                i += 1;
                continue;
            }
            let ind = self.indent(i);
            let line = &self.lines[i];
            if ind == 0 && !seen_content && line.first() == Some(&'%') {
                i += 1;
                continue;
            }
            let marker = |m: char| {
                line.len() >= 3 && line[..3].iter().all(|c| *c == m) && line.get(3).is_none_or(|c| is_blank(*c))
            };
            if ind == 0 && (marker('-') || marker('.')) {
                let start = marker('-');
                if start && seen_content && self.second_document.is_none() {
                    self.second_document = Some(Pos::at(i, 0));
                }
                self.stack.clear();
                self.pending = None;
                let c = self.skip_blanks(i, 3);
                if start && !self.ends_at(i, c) {
                    seen_content = true;
                    self.first_content.get_or_insert(Pos::at(i, c));
                    i = self.node(i, c);
                } else {
                    i += 1;
                }
                continue;
            }
            seen_content = true;
            self.first_content.get_or_insert(Pos::at(i, ind));
            i = self.node(i, ind);
        }
    }

    /// Finds the collection a block node at `col` belongs to (opening one under a pending key if it is
    /// deeper), and returns its path; None when the node fits nowhere.
    fn place(&mut self, i: usize, col: usize, dash: bool) -> Option<Option<String>> {
        if let Some((path, parent_col)) = self.pending.take() {
            if col > parent_col || (dash && col == parent_col) {
                self.set_value(&path, Pos::at(i, col));
                self.stack.push(Frame { column: col, seq: dash, path: path.clone(), next_item: 0 });
                return Some(path);
            }
        }
        while let Some(top) = self.stack.last() {
            if top.column > col || (top.column == col && top.seq != dash) {
                self.stack.pop();
            } else {
                break;
            }
        }
        match self.stack.last() {
            Some(top) if top.column == col => Some(top.path.clone()),
            Some(_) => None,
            None => {
                self.stack.push(Frame { column: col, seq: dash, path: Some(String::new()), next_item: 0 });
                Some(Some(String::new()))
            }
        }
    }

    /// Reads the block node that starts at line `i`, column `col`; returns the next line to read.
    fn node(&mut self, i: usize, mut col: usize) -> usize {
        // Each round either returns or moves `col` right, so this ends.
        loop {
            let dash = self.ch(i, col) == Some('-') && self.ch(i, col + 1).is_none_or(is_blank);
            if !dash && matches!(self.ch(i, col), Some('{' | '[')) {
                // A flow collection as a node of its own: the root, or the value of a pending key.
                let path = match self.pending.take() {
                    Some((path, parent_col)) if col > parent_col => {
                        self.set_value(&path, Pos::at(i, col));
                        path
                    }
                    _ if self.stack.is_empty() => Some(String::new()),
                    _ => None,
                };
                let end = self.flow(path, i, col);
                return end + 1;
            }
            let key = if dash { None } else { self.key_at(i, col) };
            if !dash && key.is_none() {
                // A scalar where a key or item should be: nothing to record; skip what belongs to it.
                self.pending = None;
                return self.skip_deeper(i + 1, col);
            }
            let Some(container) = self.place(i, col, dash) else {
                return self.skip_deeper(i + 1, col);
            };
            let (path, value_col) = if dash {
                let index = self.stack.last().map_or(0, |f| f.next_item);
                if let Some(top) = self.stack.last_mut() {
                    top.next_item += 1;
                }
                (self.item(&container, index), self.skip_blanks(i, col + 1))
            } else {
                let (key, after_colon) = key.unwrap_or_default();
                (self.child(&container, &key), self.skip_blanks(i, after_colon))
            };
            self.record(&path, Pos::at(i, col), Pos::at(i, value_col));
            if self.ends_at(i, value_col) {
                self.pending = Some((path, col));
                return i + 1;
            }
            match self.inline(path, col, i, value_col) {
                Inline::Node(c) if c > col => col = c,
                Inline::Node(_) => return i + 1,
                Inline::NextLine(n) => return n,
            }
        }
    }

    /// The value written on the same line as its key or `-`, starting at `col`.
    fn inline(&mut self, path: Option<String>, parent_col: usize, i: usize, col: usize) -> Inline {
        let mut c = col;
        // Properties: a tag (`!!str`, `!custom`) or an anchor (`&name`), each followed by blanks.
        while matches!(self.ch(i, c), Some('!' | '&')) {
            while self.ch(i, c).is_some_and(|ch| !is_blank(ch)) {
                c += 1;
            }
            c = self.skip_blanks(i, c);
        }
        if self.ends_at(i, c) {
            self.pending = Some((path, parent_col));
            return Inline::NextLine(i + 1);
        }
        match self.ch(i, c) {
            Some('-') if self.ch(i, c + 1).is_none_or(is_blank) => {
                self.pending = Some((path, parent_col));
                Inline::Node(c)
            }
            Some('|' | '>') => Inline::NextLine(self.skip_deeper(i + 1, parent_col)),
            Some('{' | '[') => {
                let end = self.flow(path, i, c);
                Inline::NextLine(end + 1)
            }
            Some('"' | '\'') if self.key_at(i, c).is_none() => {
                let (end_line, _) = self.quoted(i, c);
                Inline::NextLine(self.skip_deeper(end_line + 1, parent_col))
            }
            _ if self.key_at(i, c).is_some() => {
                self.pending = Some((path, parent_col));
                Inline::Node(c)
            }
            _ => Inline::NextLine(self.skip_deeper(i + 1, parent_col)),
        }
    }

    /// The first line from `from` on that is neither blank nor indented deeper than `col`.
    fn skip_deeper(&self, from: usize, col: usize) -> usize {
        let mut i = from;
        while i < self.lines.len() {
            let blank = self.lines[i].iter().all(|c| is_blank(*c));
            if blank || self.indent(i) > col {
                i += 1;
            } else {
                break;
            }
        }
        i
    }

    /// A block mapping key at (`i`, `col`): its text and the column after its `:`.
    fn key_at(&self, i: usize, col: usize) -> Option<(String, usize)> {
        let line = self.lines.get(i)?;
        let first = *line.get(col)?;
        let colon_ends_key = |j: usize| line.get(j) == Some(&':') && line.get(j + 1).is_none_or(|c| is_blank(*c));
        if first == '"' || first == '\'' {
            let (end_line, end_col) = self.quoted(i, col);
            if end_line != i {
                return None;
            }
            let text: String = line.get(col + 1..end_col.saturating_sub(1))?.iter().collect();
            let j = self.skip_blanks(i, end_col);
            return colon_ends_key(j).then_some((text, j + 1));
        }
        if "[]{}#&*!|>%@`,?".contains(first) || (first == '-' && line.get(col + 1).is_none_or(|c| is_blank(*c))) {
            return None;
        }
        let mut j = col;
        while j < line.len() {
            if colon_ends_key(j) {
                let text: String = line[col..j].iter().collect();
                return Some((text.trim_end().to_string(), j + 1));
            }
            if line[j] == '#' && j > col && is_blank(line[j - 1]) {
                return None;
            }
            j += 1;
        }
        None
    }

    /// Skips a quoted scalar that starts at (`i`, `col`); returns the line and column just after it
    /// (the end of the text if it never closes).
    fn quoted(&self, mut i: usize, col: usize) -> (usize, usize) {
        let quote = self.ch(i, col).unwrap_or('"');
        let mut c = col + 1;
        while i < self.lines.len() {
            match self.ch(i, c) {
                None => {
                    i += 1;
                    c = 0;
                }
                Some('\\') if quote == '"' => c += 2,
                Some(q) if q == quote => {
                    if quote == '\'' && self.ch(i, c + 1) == Some('\'') {
                        c += 2;
                    } else {
                        return (i, c + 1);
                    }
                }
                Some(_) => c += 1,
            }
        }
        (self.lines.len().saturating_sub(1), 0)
    }

    /// Skips a plain scalar inside a flow collection; returns the position after it.
    fn plain_in_flow(&self, mut i: usize, mut c: usize) -> (usize, usize) {
        let start = (i, c);
        while i < self.lines.len() {
            match self.ch(i, c) {
                None => {
                    i += 1;
                    c = 0;
                }
                Some(',' | '[' | ']' | '{' | '}') => break,
                Some(':') if self.ch(i, c + 1).is_none_or(|n| is_blank(n) || ",[]{}".contains(n)) => break,
                Some('#') if c > 0 && self.ch(i, c - 1).is_some_and(is_blank) => {
                    i += 1;
                    c = 0;
                }
                Some(_) => c += 1,
            }
        }
        if (i, c) == start {
            (i, c + 1)
        } else {
            (i, c)
        }
    }

    /// Walks a flow collection that opens at (`i`, `col`), recording its keys and items under `path`;
    /// returns the line where it closes (or the last line).
    fn flow(&mut self, path: Option<String>, mut i: usize, mut c: usize) -> usize {
        enum State {
            Key,
            Colon(Option<String>),
            Value(Option<String>),
            AfterValue,
            Item,
        }
        struct Ctx {
            path: Option<String>,
            seq: bool,
            next_item: usize,
            state: State,
        }
        let mut stack: Vec<Ctx> = Vec::new();
        let open = |ch: Option<char>, path: Option<String>| Ctx {
            path,
            seq: ch == Some('['),
            next_item: 0,
            state: if ch == Some('[') { State::Item } else { State::Key },
        };
        stack.push(open(self.ch(i, c), path));
        c += 1;
        loop {
            // Blanks, line ends and comments.
            let ch = loop {
                if i >= self.lines.len() {
                    return self.lines.len().saturating_sub(1);
                }
                match self.ch(i, c) {
                    None => {
                        i += 1;
                        c = 0;
                    }
                    Some(ch) if is_blank(ch) => c += 1,
                    Some('#') if c == 0 || self.ch(i, c - 1).is_some_and(is_blank) => {
                        i += 1;
                        c = 0;
                    }
                    Some(ch) => break ch,
                }
            };
            let deep = stack.len() > MAX_DEPTH;
            let Some(top) = stack.last_mut() else {
                return i;
            };
            match (ch, &top.state) {
                ('}' | ']', _) => {
                    stack.pop();
                    c += 1;
                    if stack.is_empty() {
                        return i;
                    }
                    continue;
                }
                (',', _) => {
                    if !top.seq {
                        top.state = State::Key;
                    }
                    c += 1;
                    continue;
                }
                (':', State::Colon(_)) => {
                    let State::Colon(kp) = std::mem::replace(&mut top.state, State::AfterValue) else {
                        continue;
                    };
                    top.state = State::Value(kp);
                    c += 1;
                    continue;
                }
                (':', _) | (_, State::AfterValue) | (_, State::Colon(_)) => {
                    c += 1;
                    continue;
                }
                ('!' | '&', _) => {
                    // A tag or an anchor before a node: skip it, the node follows.
                    while self.ch(i, c).is_some_and(|x| !is_blank(x) && !",[]{}".contains(x)) {
                        c += 1;
                    }
                    continue;
                }
                _ => {}
            }
            let here = Pos::at(i, c);
            let node_path = match std::mem::replace(&mut top.state, State::AfterValue) {
                State::Key => {
                    if ch == '{' || ch == '[' {
                        // A collection as a key: walk it without recording.
                        top.state = State::Colon(None);
                        stack.push(open(Some(ch), None));
                        c += 1;
                        continue;
                    }
                    let (end_i, end_c) =
                        if ch == '"' || ch == '\'' { self.quoted(i, c) } else { self.plain_in_flow(i, c) };
                    let key_path = match &top.path {
                        Some(p) if !deep && end_i == i => {
                            let raw: String = self.lines[i].get(c..end_c).unwrap_or(&[]).iter().collect();
                            let raw = raw.trim();
                            let key = if ch == '"' || ch == '\'' {
                                raw.get(1..raw.len().saturating_sub(1)).unwrap_or("")
                            } else {
                                raw
                            };
                            (key.chars().count() <= MAX_KEY_CHARS).then(|| child_path(p, key))
                        }
                        _ => None,
                    };
                    self.record(&key_path, here, here);
                    top.state = State::Colon(key_path);
                    (i, c) = (end_i, end_c);
                    continue;
                }
                State::Value(kp) => {
                    self.set_value(&kp, here);
                    kp
                }
                State::Item => {
                    top.state = State::Item;
                    let index = top.next_item;
                    top.next_item += 1;
                    let ip = match &top.path {
                        Some(p) if !deep => Some(item_path(p, index)),
                        _ => None,
                    };
                    self.record(&ip, here, here);
                    ip
                }
                State::Colon(_) | State::AfterValue => None,
            };
            match ch {
                '{' | '[' => {
                    stack.push(open(Some(ch), node_path));
                    c += 1;
                }
                '"' | '\'' => (i, c) = self.quoted(i, c),
                _ => (i, c) = self.plain_in_flow(i, c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn block_keys_and_items_are_found_with_their_values() {
        let text = "apiVersion: x\nspec:\n  seed: 7\n  steps:\n  - kubectl: get pods\n    expect:\n      contains: [a, b]\n  - wait: 3s\n";
        let l = Locations::scan(text);
        assert_eq!(l.key("apiVersion"), at(1, 1));
        assert_eq!(l.value("apiVersion"), at(1, 13));
        assert_eq!(l.value("spec"), at(3, 3));
        assert_eq!(l.value("spec.seed"), at(3, 9));
        assert_eq!(l.key("spec.steps[0]"), at(5, 3));
        assert_eq!(l.key("spec.steps[0].kubectl"), at(5, 5));
        assert_eq!(l.value("spec.steps[0].kubectl"), at(5, 14));
        assert_eq!(l.key("spec.steps[0].expect.contains[1]"), at(7, 21));
        assert_eq!(l.key("spec.steps[1]"), at(8, 3));
        assert_eq!(l.value("spec.steps[1].wait"), at(8, 11));
    }

    #[test]
    fn block_scalars_and_multi_line_strings_are_skipped() {
        let text = "steps:\n- apply: |\n    kind: Pod\n    - not: an item\n\n    x: 1\n  expect: {contains: Pod}\n- kubectl: \"a\nb: c\"\n- kubectl: plain\n    continued: here\n- wait: 1s\n";
        let l = Locations::scan(text);
        assert_eq!(l.key("steps[0]"), at(2, 1));
        assert_eq!(l.key("steps[0].expect"), at(7, 3));
        assert_eq!(l.key("steps[0].expect.contains"), at(7, 12));
        assert_eq!(l.value("steps[0].expect.contains"), at(7, 22));
        assert!(!l.has("steps[0].apply.kind"));
        assert!(!l.has("steps[1].b"));
        assert_eq!(l.key("steps[1]"), at(8, 1));
        assert_eq!(l.key("steps[2]"), at(10, 1));
        assert!(!l.has("steps[2].continued"));
        assert_eq!(l.key("steps[3]"), at(12, 1));
        assert!(!l.has("steps[4]"));
    }

    #[test]
    fn flow_collections_are_walked_across_lines() {
        let text = "nodes:\n- {name: node01, capacity: {cpu: \"2\", memory: 4Gi},\n   labels: {a: 'x,y'}}\n- [a, {b: c}]\nusers: [{name: jane,\n  groups: [dev]}]\n";
        let l = Locations::scan(text);
        assert_eq!(l.key("nodes[0]"), at(2, 1));
        assert_eq!(l.value("nodes[0]"), at(2, 3));
        assert_eq!(l.key("nodes[0].name"), at(2, 4));
        assert_eq!(l.value("nodes[0].name"), at(2, 10));
        assert_eq!(l.value("nodes[0].capacity.memory"), at(2, 47));
        assert_eq!(l.value("nodes[0].labels.a"), at(3, 16));
        assert_eq!(l.key("nodes[1][1]"), at(4, 7));
        assert_eq!(l.key("nodes[1][1].b"), at(4, 8));
        assert_eq!(l.key("users[0].groups[0]"), at(6, 12));
    }

    #[test]
    fn missing_paths_fall_back_to_the_nearest_ancestor() {
        let l = Locations::scan("# c\n\nspec:\n  steps:\n  - wait: 1s\n");
        assert_eq!(l.key("spec.steps[0].expect.matches[2]"), at(5, 3));
        assert_eq!(l.key("nothing.here"), at(3, 1));
        assert_eq!(l.first_content(), at(3, 1));
    }

    #[test]
    fn duplicate_keys_and_second_documents_are_noticed() {
        let l = Locations::scan("---\na: 1\nb:\n  c: 1\n  c: 2\n---\nd: 1\n");
        assert_eq!(l.duplicate("b.c"), Some(at(5, 3)));
        assert_eq!(l.duplicate("a"), None);
        assert_eq!(l.second_document(), Some(at(6, 1)));
    }

    #[test]
    fn anchors_tags_and_indentless_sequences_are_understood() {
        let text = "a: &x\n  b: !!str 1\nlist:\n- one\n- &y two\nnext: !tag\n  c: 2\n";
        let l = Locations::scan(text);
        assert_eq!(l.key("a.b"), at(2, 3));
        assert_eq!(l.key("list[1]"), at(5, 1));
        assert_eq!(l.key("next"), at(6, 1));
        assert_eq!(l.key("next.c"), at(7, 3));
    }

    #[test]
    fn hostile_text_never_panics_and_stays_bounded() {
        let deep_flow = "[".repeat(50_000);
        let deep_block: String = (0..300).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        let long_key = format!("{}: 1\n", "k".repeat(100_000));
        let odd = [
            "",
            "\n",
            "-",
            "- ",
            ":",
            "::",
            "{",
            "}",
            "]",
            "[",
            "'",
            "\"",
            "\"\\",
            "- - - -",
            "? a\n: b",
            "a: [b, {c: d",
            "a:\n  - b\n c: d",
            "\t- x",
            "é: ü\n  ö: [ä]",
            "--- |\n x",
            "...\n---\n--- a",
            "a: 'it''s'\nb: 1",
            "a: \"x\\\"y\": 1",
            "{a: b}: c",
            "[a: b, c]",
            "- &a !t",
        ];
        for text in odd.iter().map(|s| s.to_string()).chain([deep_flow, deep_block, long_key]) {
            let l = Locations::scan(&text);
            let _ = l.key("a.b[0].c");
            let _ = l.value("");
        }
    }

    #[test]
    fn parent_paths_strip_one_segment() {
        assert_eq!(parent_path("a.b[2]"), "a.b");
        assert_eq!(parent_path("a.b"), "a");
        assert_eq!(parent_path("a"), "");
        assert_eq!(parent_path("[3]"), "");
    }
}
