//! Interim table.
use std::sync::Arc;

use crate::api::Object;

pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn render(&self, no_headers: bool) -> String {
        let mut all: Vec<&Vec<String>> = Vec::new();
        if !no_headers {
            all.push(&self.headers);
        }
        all.extend(self.rows.iter());
        let cols = self.headers.len();
        let widths: Vec<usize> = (0..cols)
            .map(|c| all.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in all {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                if c + 1 == cols {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{:width$}   ", cell, width = widths[c]));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

pub fn with_labels(t: Table, _objects: &[Arc<Object>]) -> Table {
    t
}

pub fn with_namespace(t: Table, _objects: &[Arc<Object>]) -> Table {
    t
}
