//! Every scenario file under tests/scenarios/ plays to the end with all its `expect` checks holding, and
//! the `kubeglass` binary reports results with the documented exit codes.

use std::path::Path;
use std::process::Command;

fn scenario_files() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_file_passes_its_expectations() {
    let files = scenario_files();
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.display().to_string();
        let scenario = kubeglass::scenario::parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let report = kubeglass::scenario::runner::run(&scenario);
        assert!(
            report.passed(),
            "{name} failed (seed {}; replay: cargo run -- run {name}):\n{}",
            scenario.seed,
            report.transcript(false)
        );
    }
}

#[test]
fn the_cli_exits_0_when_expectations_hold_1_when_one_fails_and_2_for_an_invalid_file() {
    let bin = env!("CARGO_BIN_EXE_kubeglass");
    let dir = std::env::temp_dir().join(format!("kubeglass-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.yaml");
    let bad = dir.join("bad.yaml");
    let invalid = dir.join("invalid.yaml");
    let head = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  steps:\n";
    std::fs::write(&good, format!("{head}  - kubectl: get nodes\n    expect: {{contains: [node01]}}\n")).unwrap();
    std::fs::write(&bad, format!("{head}  - kubectl: get nodes\n    expect: {{contains: [node99]}}\n")).unwrap();
    std::fs::write(&invalid, format!("{head}  - wait: 3d\n")).unwrap();
    let status = |f: &Path| Command::new(bin).arg("run").arg(f).output().unwrap();
    let ok = status(&good);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stdout));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("$ kubectl get nodes"));
    let failed = status(&bad);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stdout).contains("expected the output to contain \"node99\""));
    let broken = status(&invalid);
    assert_eq!(broken.status.code(), Some(2));
    let err = String::from_utf8_lossy(&broken.stderr);
    assert!(err.starts_with(&format!("{}:6:", invalid.display())), "{err}");
    assert!(err.contains("time: unknown unit \"d\" in duration \"3d\""), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_share_link_round_trips_through_the_cli() {
    let bin = env!("CARGO_BIN_EXE_kubeglass");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/apiserver-down.yaml");
    let url = Command::new(bin).arg("url").arg(&file).output().unwrap();
    assert_eq!(url.status.code(), Some(0));
    let fragment = String::from_utf8(url.stdout).unwrap();
    assert!(fragment.starts_with("#s="));
    let decoded =
        Command::new(bin).arg("decode").arg(format!("http://127.0.0.1:8080/{}", fragment.trim())).output().unwrap();
    assert_eq!(String::from_utf8(decoded.stdout).unwrap(), std::fs::read_to_string(&file).unwrap());
    let hostile = Command::new(bin).arg("decode").arg("#s=%%%not-lz").output().unwrap();
    assert_eq!(hostile.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&hostile.stderr).starts_with("error: "));
}
