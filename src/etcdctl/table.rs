//! etcdctl's `-w table` output, drawn as its table library (olekukonko/tablewriter v0.0.5) draws it with
//! etcdctl's settings: `+---+` borders, upper-cased headers centred in their column, cells aligned right.

/// The header as tablewriter shows it: upper case, `_` read as a space.
fn title(name: &str) -> String {
    name.replace('_', " ").trim().to_uppercase()
}

fn border(widths: &[usize]) -> String {
    let mut s = String::from("+");
    for w in widths {
        s.push_str(&"-".repeat(w + 2));
        s.push('+');
    }
    s.push('\n');
    s
}

/// Renders a header and rows as a bordered table.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let titles: Vec<String> = header.iter().map(|h| title(h)).collect();
    let mut widths: Vec<usize> = titles.iter().map(|t| t.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = border(&widths);
    let mut out = line.clone();
    out.push('|');
    for (t, w) in titles.iter().zip(&widths) {
        let gap = w - t.chars().count();
        let left = gap / 2;
        out.push_str(&format!(" {}{}{} |", " ".repeat(left), t, " ".repeat(gap - left)));
    }
    out.push('\n');
    out.push_str(&line);
    for row in rows {
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            let cell = row.get(i).map(String::as_str).unwrap_or("");
            out.push_str(&format!(" {cell:>w$} |"));
        }
        out.push('\n');
    }
    // tablewriter closes with the bottom border even under an empty body.
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_list_table_centres_headers_and_right_aligns_cells() {
        let row = vec![
            "8e9e05c52164694d".to_string(),
            "started".to_string(),
            "controlplane".to_string(),
            "https://192.168.56.10:2380".to_string(),
            "https://192.168.56.10:2379".to_string(),
            "false".to_string(),
        ];
        let table = render(&["ID", "Status", "Name", "Peer Addrs", "Client Addrs", "Is Learner"], &[row]);
        let expected = "\
+------------------+---------+--------------+----------------------------+----------------------------+------------+
|        ID        | STATUS  |     NAME     |         PEER ADDRS         |        CLIENT ADDRS        | IS LEARNER |
+------------------+---------+--------------+----------------------------+----------------------------+------------+
| 8e9e05c52164694d | started | controlplane | https://192.168.56.10:2380 | https://192.168.56.10:2379 |      false |
+------------------+---------+--------------+----------------------------+----------------------------+------------+
";
        assert_eq!(table, expected);
    }
}
