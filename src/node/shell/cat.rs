//! `cat [FILE]…`: the files' contents (standard input when there is none or for `-`), with coreutils'
//! errors for missing files and directories.

use super::files;
use super::{Node, Outcome};
use crate::cluster::nodefs::NodeFs;

pub fn run(node: &mut dyn Node, args: &[String], stdin: Option<&str>) -> Outcome {
    let operands: Vec<&String> =
        args.iter().filter(|a| !matches!(a.as_str(), "-n" | "-A" | "-v" | "-e" | "-E")).collect();
    if operands.is_empty() {
        return Outcome::ok(stdin.unwrap_or(""));
    }
    let mut out = Outcome::default();
    for f in operands {
        if f == "-" {
            out.stdout.push_str(stdin.unwrap_or(""));
            continue;
        }
        match files::read(node, &NodeFs::absolute(f)) {
            Ok(text) => out.stdout.push_str(&text),
            Err(e) => {
                out.stderr.push_str(&format!("cat: {f}: {}\n", e.text()));
                out.exit = 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;

    #[test]
    fn cat_prints_files_and_refuses_directories() {
        let mut node = FakeNode::new("n");
        node.write("/var/lib/kubelet/config.yaml", "staticPodPath: /etc/kubernetes/manifests\n");
        assert_eq!(
            run_line(&mut node, "cat /var/lib/kubelet/config.yaml").stdout,
            "staticPodPath: /etc/kubernetes/manifests\n"
        );
        let r = run_line(&mut node, "cat /var/lib/kubelet");
        assert_eq!((r.stdout.as_str(), r.exit), ("cat: /var/lib/kubelet: Is a directory\n", 1));
        assert_eq!(run_line(&mut node, "echo hi | cat").stdout, "hi\n");
    }
}
