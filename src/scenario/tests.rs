//! Tests of scenario files as a whole: defaults, every step, the canonical text, share links, and every
//! family of error with its exact line and column.

use std::collections::BTreeMap;

use super::file::{ADMIN_USER, MAX_PATTERN_BYTES};
use super::*;
use crate::sim::Rng;

/// The example of the format's documentation, in full.
const EXAMPLE: &str = r#"apiVersion: kubeglass.dev/v1alpha1
kind: Scenario
metadata: {name: scheduler-down, description: "New pods stay Pending while the scheduler is stopped."}
spec:
  seed: 7                        # default 1
  cluster:                       # optional; defaults below
    etcdMembers: 3               # 1, 3 or 5; default 1
    cloud: false                 # true: cloud-controller-manager runs
    controlPlane: {name: controlplane, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
    nodes:
    - {name: node01, capacity: {cpu: "2", memory: 4Gi, pods: "110"}, labels: {disktype: ssd}, taints: []}
    - {name: node02}
    users:                       # kubernetes-admin (kubeadm:cluster-admins) always exists and is the default
    - {name: jane, token: jane-token, groups: [dev]}
  steps:
  - apply: |                     # as `kubectl apply -f -` by the current user; multi-document allowed
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
  - kubectl: get pods -o wide    # any kubectl command line
    expect:                      # optional checks on that step's output
      contains: [Running]        # a string or a list
      matches: ['^web-[4-9bcdf]+-[bcdfghjklmnpqrstvwxz2456789]{5} ']   # regexes, multi-line mode
      notContains: [Pending]
      exitCode: 0                # optional
  - stop: kube-scheduler
  - crash: kube-scheduler
  - start: kube-scheduler
  - wait: 30s                    # advance simulated time (Go duration syntax)
  - waitFor: {kubectl: get pods, contains: Running, timeout: 120s}
  - on: node01                   # a shell on a node
    run: systemctl stop kubelet  # expect: works here too
  - as: jane                     # later kubectl steps run as this user until the next `as`
  - at: 12.5s
    kubectl: get nodes
"#;

const HEAD: &str = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n";

fn ok(text: &str) -> Scenario {
    parse(text, "s.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Parses `HEAD` + `spec` and expects an error at `line`:`column` whose message contains `needle`.
fn fails(spec: &str, line: usize, column: usize, needle: &str) {
    fails_whole(&format!("{HEAD}{spec}"), line, column, needle);
}

fn fails_whole(text: &str, line: usize, column: usize, needle: &str) {
    let e = match parse(text, "s.yaml") {
        Ok(_) => panic!("expected an error containing {needle:?}\n{text}"),
        Err(e) => e,
    };
    assert_eq!((e.line, e.column), (line, column), "position of: {e}\n{text}");
    assert!(e.message.contains(needle), "{e}\nshould contain {needle:?}");
    assert_eq!(e.file, "s.yaml");
}

#[test]
fn the_documented_example_parses_into_every_kind_of_step() {
    let s = ok(EXAMPLE);
    assert_eq!(s.name, "scheduler-down");
    assert_eq!(s.description, "New pods stay Pending while the scheduler is stopped.");
    assert_eq!(s.seed, 7);
    assert_eq!(s.cluster.etcd_members, 3);
    assert!(!s.cluster.cloud);
    assert_eq!(s.cluster.control_plane, NodeSpec::new("controlplane"));
    assert_eq!(s.cluster.nodes.len(), 2);
    assert_eq!(s.cluster.nodes[0].labels, BTreeMap::from([("disktype".to_string(), "ssd".to_string())]));
    assert_eq!(s.cluster.nodes[1], NodeSpec::new("node02"));
    assert_eq!(
        s.cluster.users,
        vec![UserSpec { name: "jane".into(), token: "jane-token".into(), groups: vec!["dev".into()] }]
    );
    let actions: Vec<&Action> = s.steps.iter().map(|s| &s.action).collect();
    assert_eq!(
        actions,
        [
            &Action::Apply { manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n".into() },
            &Action::Kubectl { command: "get pods -o wide".into() },
            &Action::Stop("kube-scheduler".into()),
            &Action::Crash("kube-scheduler".into()),
            &Action::Start("kube-scheduler".into()),
            &Action::Wait { ms: 30_000 },
            &Action::WaitFor { command: "get pods".into(), contains: "Running".into(), timeout_ms: 120_000 },
            &Action::Shell { node: "node01".into(), command: "systemctl stop kubelet".into() },
            &Action::As { user: "jane".into() },
            &Action::Kubectl { command: "get nodes".into() },
        ]
    );
    let lines: Vec<usize> = s.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [16, 21, 27, 28, 29, 30, 31, 32, 34, 35]);
    assert_eq!(s.steps[9].at_ms, Some(12_500));
    assert!(s.steps[..9].iter().all(|s| s.at_ms.is_none()));
    assert_eq!(
        s.steps[1].expect,
        Some(Expect {
            contains: vec!["Running".into()],
            not_contains: vec!["Pending".into()],
            matches: vec!["^web-[4-9bcdf]+-[bcdfghjklmnpqrstvwxz2456789]{5} ".into()],
            exit_code: Some(0),
        })
    );
}

#[test]
fn a_minimal_file_gets_every_default() {
    let s = ok("apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: empty\n");
    assert_eq!(s.seed, 1);
    assert_eq!(s.description, "");
    assert!(s.steps.is_empty());
    assert_eq!(s.cluster, ClusterSpec::default());
    let c = &s.cluster;
    assert_eq!(c.node_names().collect::<Vec<_>>(), ["controlplane", "node01", "node02"]);
    for n in std::iter::once(&c.control_plane).chain(&c.nodes) {
        assert_eq!((n.cpu.as_str(), n.memory.as_str(), n.pods.as_str()), ("2", "4Gi", "110"));
        assert!(n.labels.is_empty() && n.taints.is_empty());
    }
    assert_eq!((c.etcd_members, c.cloud), (1, false));
    assert!(c.users.is_empty());
    assert!(c.has_user("kubernetes-admin"));
}

#[test]
fn partial_clusters_and_steps_fill_in_the_rest() {
    let s = ok(&format!(
        "{HEAD}  cluster:\n    nodes:\n    - name: big\n      capacity: {{cpu: 8}}\n      taints:\n      - {{key: gpu, effect: NoSchedule}}\n    users: [{{name: bob}}]\n  steps:\n  - waitFor:\n      kubectl: get pods\n      contains: Running\n  - kubectl: get pods\n    expect: {{contains: a}}\n"
    ));
    let big = &s.cluster.nodes[0];
    assert_eq!((big.cpu.as_str(), big.memory.as_str()), ("8", "4Gi"));
    assert_eq!(big.taints, [TaintSpec { key: "gpu".into(), value: None, effect: TaintEffect::NoSchedule }]);
    assert_eq!(s.cluster.control_plane.name, "controlplane");
    assert_eq!(s.cluster.users[0].token, "bob-token");
    assert!(matches!(s.steps[0].action, Action::WaitFor { timeout_ms: 60_000, .. }));
    assert_eq!(s.steps[1].expect.as_ref().map(|e| e.contains.clone()), Some(vec!["a".to_string()]));
}

#[test]
fn the_canonical_text_of_the_example_reads_back_equal() {
    let s = ok(EXAMPLE);
    let canonical = to_yaml(&s);
    let back = ok(&canonical);
    assert_eq!(back, s);
    assert_eq!(to_yaml(&back), canonical);
    assert!(canonical.contains(
        "  - apply: |\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: web\n"
    ));
}

#[test]
fn the_canonical_text_leaves_defaults_out() {
    let s = ok(&format!("{HEAD}  steps:\n  - kubectl: get pods\n    at: 1m\n"));
    assert_eq!(
        to_yaml(&s),
        "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: t\nspec:\n  seed: 1\n  steps:\n  - kubectl: get pods\n    at: 1m0s\n"
    );
    let empty = ok(HEAD);
    assert!(to_yaml(&empty).ends_with("spec:\n  seed: 1\n  steps: []\n"));
}

#[test]
fn canonical_text_round_trips_awkward_values() {
    let mut s = ok(EXAMPLE);
    s.name = "100".into();
    s.description = "line one\n  line two: with colon # and hash\n".into();
    s.cluster.cloud = true;
    s.cluster.metrics_server = true;
    s.cluster.etcd_members = 5;
    s.cluster.nodes = vec![];
    s.cluster.control_plane.memory = "8Gi".into();
    s.cluster.control_plane.taints.push(TaintSpec {
        key: "node-role.kubernetes.io/control-plane".into(),
        value: Some("".into()),
        effect: TaintEffect::NoExecute,
    });
    s.cluster.users[0].groups = vec!["system:masters".into(), "true".into()];
    s.steps = vec![
        Step {
            at_ms: Some(0),
            line: 0,
            action: Action::Apply { manifest: "  leading spaces\n\tand a tab\n\n\n".into() },
            expect: Some(Expect::default()),
        },
        Step {
            at_ms: Some(1),
            line: 0,
            action: Action::Shell { node: "controlplane".into(), command: "cat <<EOF\nx: \"y\"\nEOF".into() },
            expect: Some(Expect {
                contains: vec!["a\nb".into()],
                not_contains: vec!["- x".into(), "'".into()],
                matches: vec!["^a: [0-9]+$".into()],
                exit_code: Some(255),
            }),
        },
        Step {
            at_ms: None,
            line: 0,
            action: Action::Kubectl { command: "get pods -o jsonpath='{.items[*].metadata.name}'".into() },
            expect: None,
        },
        Step { at_ms: None, line: 0, action: Action::Stop("cloud-controller-manager".into()), expect: None },
    ];
    let canonical = to_yaml(&s);
    assert_eq!(ok(&canonical), s, "{canonical}");
}

/// Random scenarios, with strings drawn from an alphabet of everything YAML treats specially.
#[test]
fn random_scenarios_round_trip_through_their_canonical_text() {
    let mut rng = Rng::new(2024);
    let pieces = [
        "a",
        "Z",
        "0",
        "7",
        " ",
        "  ",
        "\n",
        "\t",
        ":",
        ": ",
        "#",
        " #",
        "-",
        "- ",
        "'",
        "\"",
        "\\",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&",
        "*",
        "!",
        "|",
        ">",
        "%",
        "@",
        "`",
        "?",
        "é",
        "☕",
        "🚀",
        "\r",
        "\u{0}",
        "\u{85}",
        "\u{2028}",
        "\u{feff}",
        "true",
        "null",
        "~",
        "1.5",
        "0x1F",
        "---",
        "...",
        "kind: Pod",
    ];
    let text = |rng: &mut Rng, min: usize| -> String {
        let n = min + rng.below(6) as usize;
        let s: String = (0..n).map(|_| pieces[rng.below(pieces.len() as u64) as usize]).collect();
        if s.trim().is_empty() {
            format!("x{s}")
        } else {
            s
        }
    };
    for round in 0..300 {
        let mut s = ok(EXAMPLE);
        s.name = text(&mut rng, 1).replace(['\n', '\r', '\u{85}', '\u{2028}'], "n");
        s.description = if round % 4 == 0 { String::new() } else { text(&mut rng, 0) };
        s.seed = rng.next_u64();
        for step in &mut s.steps {
            step.at_ms = (rng.below(3) == 0).then(|| rng.below(1000) * 250);
            match &mut step.action {
                Action::Apply { manifest } => *manifest = text(&mut rng, 1),
                Action::Kubectl { command } => *command = text(&mut rng, 1),
                Action::WaitFor { command, contains, .. } => {
                    *command = text(&mut rng, 1);
                    *contains = text(&mut rng, 0);
                }
                Action::Shell { command, .. } => *command = text(&mut rng, 1),
                _ => {}
            }
            if let Some(e) = &mut step.expect {
                e.contains = (0..rng.below(3)).map(|_| text(&mut rng, 0)).collect();
                e.not_contains = (0..rng.below(3)).map(|_| text(&mut rng, 0)).collect();
            }
        }
        // `at` must not go backwards.
        let mut last = 0;
        for step in &mut s.steps {
            if let Some(at) = &mut step.at_ms {
                *at = (*at).max(last);
                last = *at;
            }
        }
        let canonical = to_yaml(&s);
        let back = parse(&canonical, "r.yaml").unwrap_or_else(|e| panic!("{e}\n{canonical}"));
        assert_eq!(back, s, "{canonical}");
    }
}

#[test]
fn a_share_link_carries_a_scenario_exactly() {
    let s = ok(EXAMPLE);
    let link = format!("https://kubeglass.dev/#{}", encode(&to_yaml(&s)));
    let text = decode(&link).expect("decodes");
    assert_eq!(ok(&text), s);
}

#[test]
fn errors_display_as_file_line_column_message() {
    let e = parse(&format!("{HEAD}  seed: x\n"), "lab/one.yaml").unwrap_err();
    assert_eq!(e.to_string(), "lab/one.yaml:5:9: spec.seed: invalid type: string \"x\", expected u64");
}

#[test]
fn yaml_syntax_errors_are_located() {
    fails("  steps:\n  - kubectl: \"get\\q\"\n", 6, 18, "found unknown escape character");
    fails("  steps: [a\n", 6, 1, "did not find expected ',' or ']'");
    fails("  seed: 1\n   steps: []\n", 6, 9, "mapping values are not allowed");
    fails_whole(
        "apiVersion: kubeglass.dev/v1alpha1\n\tkind: Scenario\n",
        2,
        1,
        "found a tab character that violates indentation",
    );
}

#[test]
fn control_characters_are_located() {
    fails("  seed: 1\u{7}\n", 5, 10, "control character U+0007");
}

#[test]
fn a_file_of_another_kind_is_refused() {
    fails_whole(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {labels: {}}\n",
        1,
        13,
        "\"apps/v1\" is not a scenario's apiVersion",
    );
    fails_whole("apiVersion: kubeglass.dev/v1alpha1\nkind: Scenery\n", 2, 7, "\"Scenery\" is not a scenario");
    fails_whole("# nothing\n\nkind: Scenario\n", 3, 1, "apiVersion is missing");
    fails_whole("apiVersion: kubeglass.dev/v1alpha1\n", 1, 1, "kind is missing");
    fails_whole("# only a comment\n", 1, 1, "the file is empty");
    fails_whole("", 1, 1, "the file is empty");
    fails_whole(
        "- a\n- b\n",
        1,
        1,
        "a scenario file is a YAML mapping (apiVersion, kind, metadata, spec), not a sequence",
    );
    fails_whole("just words\n", 1, 1, "not a string \"just words\"");
    fails_whole("{apiVersion: kubeglass.dev/v1alpha1, kind: Scenario}\n", 1, 1, "metadata.name is missing");
    fails_whole(&format!("{HEAD}metadata: {{name: ''}}\n"), 5, 1, "duplicate field \"metadata\"");
    fails_whole(
        "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: ' '}\n",
        3,
        18,
        "metadata.name: a scenario needs a name",
    );
}

#[test]
fn a_second_document_is_located_at_its_marker() {
    fails("  seed: 1\n---\napiVersion: kubeglass.dev/v1alpha1\n", 6, 1, "holds one YAML document");
}

#[test]
fn unknown_fields_say_which_and_where() {
    fails("  stpes: []\n", 5, 3, "spec: unknown field \"stpes\", expected one of \"seed\", \"cluster\", \"steps\"");
    fails(
        "  steps:\n  - kubectl: get pods\n    expct: {contains: x}\n",
        7,
        5,
        "spec.steps[0]: unknown field \"expct\", expected one of \"at\", \"apply\"",
    );
    fails("  steps:\n  - {wait: 1s, bogus: 1}\n", 6, 16, "unknown field \"bogus\"");
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      capacity: {cpus: 2}\n",
        8,
        18,
        "spec.cluster.nodes[0].capacity: unknown field \"cpus\", expected one of \"cpu\", \"memory\", \"pods\"",
    );
    fails_whole(
        "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: a, labels: {}}\n",
        3,
        21,
        "metadata: unknown field \"labels\", expected \"name\" or \"description\"",
    );
}

#[test]
fn wrong_types_are_located_at_the_value() {
    fails("  seed: -1\n", 5, 9, "spec.seed: invalid type: integer \"-1\", expected u64");
    fails("  cluster:\n    cloud: yes\n", 6, 12, "expected a boolean");
    fails("  cluster:\n    etcdMembers: [3]\n", 6, 18, "expected i64");
    fails("  steps: {a: 1}\n", 5, 10, "spec.steps: invalid type: map, expected a sequence");
    fails(
        "  steps:\n  - kubectl: get pods\n    expect:\n      contains: {a: 1}\n",
        8,
        17,
        "invalid type: map, expected a string or a list of strings",
    );
    fails(
        "  steps:\n  - kubectl: [get, pods]\n",
        6,
        14,
        "spec.steps[0].kubectl: invalid type: sequence, expected a string",
    );
    fails("  cluster: [1]\n", 5, 12, "spec.cluster: invalid type: sequence, expected a mapping");
}

#[test]
fn duplicate_keys_are_located_at_the_second_one() {
    fails("  seed: 1\n  seed: 2\n", 6, 3, "spec: duplicate field \"seed\"");
    fails("  steps:\n  - kubectl: a\n    kubectl: b\n", 7, 5, "spec.steps[0]: duplicate field \"kubectl\"");
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      labels:\n        x: '1'\n        x: '2'\n",
        10,
        9,
        "duplicate label key \"x\"",
    );
}

#[test]
fn a_step_needs_exactly_one_action() {
    fails("  steps:\n  - at: 5s\n", 6, 5, "spec.steps[0]: a step needs an action");
    fails("  steps:\n  - {}\n", 6, 5, "a step needs an action");
    fails(
        "  steps:\n  - kubectl: get pods\n  - kubectl: get nodes\n    stop: etcd\n",
        8,
        5,
        "spec.steps[1].stop: a step does one thing, but this one has both kubectl and stop",
    );
    fails("  steps:\n  - {as: jane, wait: 1s}\n", 6, 16, "both as and wait");
    fails("  steps:\n  - run: ls\n", 6, 5, "run needs on: NODE");
    fails("  steps:\n  - on: node01\n", 6, 5, "on: node01 needs run: COMMAND");
    fails("  steps:\n  - kubectl: ''\n", 6, 14, "the kubectl command is empty");
    fails("  steps:\n  - apply: |\n      \n  - wait: 1s\n", 6, 12, "the manifest is empty");
    fails("  steps:\n  - waitFor: {kubectl: get pods}\n", 6, 14, "waitFor needs contains");
    fails("  steps:\n  - waitFor:\n      contains: x\n", 7, 7, "waitFor needs kubectl");
}

#[test]
fn bad_durations_read_like_go() {
    fails("  steps:\n  - wait: 3d\n", 6, 11, "spec.steps[0].wait: time: unknown unit \"d\" in duration \"3d\"");
    fails("  steps:\n  - wait: 30\n", 6, 11, "time: missing unit in duration \"30\"");
    fails("  steps:\n  - wait: -5s\n", 6, 11, "time: invalid duration \"-5s\"");
    fails(
        "  steps:\n  - waitFor: {kubectl: get pods, contains: x, timeout: soon}\n",
        6,
        56,
        "spec.steps[0].waitFor.timeout: time: invalid duration \"soon\"",
    );
    fails("  steps:\n  - kubectl: get pods\n    at: 1x\n", 7, 9, "spec.steps[0].at: time: unknown unit \"x\"");
    fails("  steps:\n  - wait: 100000h\n", 6, 11, "is too long: at most 87600h0m0s");
    fails(
        "  steps:\n  - {kubectl: a, at: 10s}\n  - {kubectl: b, at: 5s}\n",
        7,
        22,
        "at 5s is earlier than at 10s of the step on line 6",
    );
}

#[test]
fn etcd_members_must_be_one_three_or_five() {
    for n in [1, 3, 5] {
        assert_eq!(ok(&format!("{HEAD}  cluster: {{etcdMembers: {n}}}\n")).cluster.etcd_members, n);
    }
    fails("  cluster:\n    etcdMembers: 4\n", 6, 18, "spec.cluster.etcdMembers: etcdMembers must be 1, 3 or 5");
    fails("  cluster: {etcdMembers: -1}\n", 5, 26, "not -1");
}

#[test]
fn node_names_are_checked() {
    fails(
        "  cluster:\n    nodes:\n    - name: node01\n    - name: node01\n",
        8,
        13,
        "spec.cluster.nodes[1].name: duplicate node name \"node01\": first at line 7",
    );
    fails(
        "  cluster:\n    nodes: [{name: controlplane}]\n",
        6,
        20,
        "spec.cluster.nodes[0].name: duplicate node name \"controlplane\": the control plane has it",
    );
    fails(
        "  cluster:\n    nodes:\n    - name: Node_1\n",
        7,
        13,
        "invalid node name \"Node_1\": a lowercase RFC 1123 subdomain must consist of",
    );
    fails(
        "  cluster:\n    controlPlane: {name: master.}\n",
        6,
        26,
        "spec.cluster.controlPlane.name: invalid node name \"master.\"",
    );
    fails("  cluster:\n    nodes:\n    - name: etcd-1\n", 7, 13, "also a component's name");
    fails("  cluster:\n    nodes:\n    - labels: {}\n", 7, 7, "spec.cluster.nodes[0]: a node needs a name");
    let many: String = (0..5_001).map(|i| format!("    - name: n{i}\n")).collect();
    fails(&format!("  cluster:\n    nodes:\n{many}"), 5_007, 5, "at most 5000 worker nodes");
}

#[test]
fn capacities_labels_and_taints_are_checked() {
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      capacity: {memory: 4GB}\n",
        8,
        26,
        "invalid memory \"4GB\": quantities must match",
    );
    fails("  cluster:\n    nodes:\n    - name: a\n      capacity: {cpu: -1}\n", 8, 23, "cannot be negative");
    fails("  cluster:\n    nodes:\n    - name: a\n      capacity: {pods: 1.5}\n", 8, 24, "invalid pods \"1.5\"");
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      labels: {bad key: x}\n",
        8,
        16,
        "invalid label key \"bad key\"",
    );
    fails("  cluster:\n    nodes:\n    - name: a\n      labels: {k: -x}\n", 8, 19, "invalid label value \"-x\"");
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      taints:\n      - {key: k, effect: Sometimes}\n",
        9,
        26,
        "Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
    );
    fails("  cluster:\n    nodes:\n    - name: a\n      taints:\n      - {key: k}\n", 9, 9, "a taint needs an effect");
    fails(
        "  cluster:\n    nodes:\n    - name: a\n      taints:\n      - effect: NoSchedule\n",
        9,
        9,
        "a taint needs a key",
    );
    for good in ["500m", "1.5", "2e3", "+4", "128974848", "1Ki", "100M"] {
        ok(&format!(
            "{HEAD}  cluster:\n    nodes:\n    - name: a\n      capacity: {{cpu: '{good}', memory: '{good}'}}\n"
        ));
    }
}

#[test]
fn users_are_checked() {
    fails(
        "  cluster:\n    users:\n    - name: jane\n    - name: jane\n",
        8,
        13,
        "duplicate user name \"jane\": first at line 7",
    );
    fails("  cluster:\n    users: [{name: kubernetes-admin}]\n", 6, 20, "kubernetes-admin always exists");
    fails("  cluster:\n    users: [{name: a, token: 'has space'}]\n", 6, 30, "invalid token \"has space\"");
    fails(
        "  cluster:\n    users: [{name: a, token: t}, {name: b, token: t}]\n",
        6,
        51,
        "users[0] already has the token \"t\"",
    );
    fails("  cluster:\n    users: [{token: t}]\n", 6, 13, "a user needs a name");
    fails("  cluster:\n    users:\n    - {name: a, groups: [dev, '']}\n", 7, 31, "invalid group \"\"");
}

#[test]
fn components_are_checked_against_the_cluster() {
    let cluster = "  cluster:\n    etcdMembers: 3\n";
    for good in [
        "kube-apiserver",
        "etcd",
        "etcd-0",
        "etcd-2",
        "kube-scheduler",
        "kube-controller-manager",
        "node01",
        "controlplane",
        "node02/kubelet",
        "controlplane/kube-proxy",
        "node01/containerd",
    ] {
        ok(&format!("{HEAD}{cluster}  steps:\n  - stop: {good}\n  - crash: {good}\n  - start: {good}\n"));
    }
    let steps = |c: &str| format!("{cluster}  steps:\n  - kubectl: get pods\n  - crash: {c}\n");
    fails(&steps("node09/kubelet"), 9, 12, "spec.steps[1].crash: unknown component \"node09/kubelet\": there is no node \"node09\" in this cluster (nodes: controlplane, node01, node02)");
    fails(&steps("node01/kubelt"), 9, 12, "a node runs node01/kubelet, node01/kube-proxy or node01/containerd");
    fails(&steps("etcd-3"), 9, 12, "no etcd member \"etcd-3\": this cluster has 3 (etcd-0..etcd-2)");
    fails(
        &steps("kubelet"),
        9,
        12,
        "unknown component \"kubelet\": expected kube-apiserver, etcd, etcd-0..etcd-2, kube-scheduler",
    );
    fails(&steps("cloud-controller-manager"), 9, 12, "set spec.cluster.cloud: true");
    fails(&steps("metrics-server"), 9, 12, "set spec.cluster.metricsServer: true");
    ok(&format!("{HEAD}  cluster: {{metricsServer: true}}\n  steps:\n  - stop: metrics-server\n"));
    fails("  steps:\n  - start: etcd-1\n", 6, 12, "this cluster has 1 (etcd-0)");
    ok(&format!("{HEAD}  cluster: {{cloud: true}}\n  steps:\n  - stop: cloud-controller-manager\n"));
    fails("  steps:\n  - on: node07\n    run: ls\n", 6, 9, "there is no node \"node07\" in this cluster");
}

#[test]
fn component_names_parse_into_typed_values() {
    let c = ClusterSpec { etcd_members: 3, cloud: true, ..ClusterSpec::default() };
    assert_eq!(Component::parse("etcd-2", &c), Ok(Component::EtcdMember(2)));
    assert_eq!(Component::parse("node01", &c), Ok(Component::Machine("node01".into())));
    assert_eq!(Component::parse("node02/kube-proxy", &c), Ok(Component::KubeProxy("node02".into())));
    assert_eq!(Component::parse("cloud-controller-manager", &c), Ok(Component::CloudControllerManager));
    assert!(Component::parse("etcd-02", &c).is_err());
    assert!(Component::parse("", &c).is_err());
    assert!(Component::parse("/", &c).is_err());
}

#[test]
fn as_must_name_a_known_user() {
    fails(
        "  cluster:\n    users: [{name: jane}]\n  steps:\n  - as: bob\n",
        8,
        9,
        "spec.steps[0].as: unknown user \"bob\": the users are kubernetes-admin, jane",
    );
    let s = ok(&format!("{HEAD}  steps:\n  - as: kubernetes-admin\n"));
    assert_eq!(s.steps[0].action, Action::As { user: ADMIN_USER.into() });
}

#[test]
fn expectations_are_checked() {
    fails(
        "  steps:\n  - kubectl: get pods\n    expect:\n      matches: ['ok', '(unclosed']\n",
        8,
        23,
        "spec.steps[0].expect.matches[1]: invalid regex \"(unclosed\"",
    );
    fails(
        "  steps:\n  - kubectl: get pods\n    expect:\n      matches: a{2,1}\n",
        8,
        16,
        "spec.steps[0].expect.matches[0]: invalid regex",
    );
    fails(
        "  steps:\n  - kubectl: get pods\n    expect:\n      exitCode: 256\n",
        8,
        17,
        "exitCode is between 0 and 255, not 256",
    );
    fails(
        "  steps:\n  - stop: etcd\n    expect: {contains: x}\n",
        7,
        5,
        "expect checks a command's output, so it goes on apply, kubectl or on/run steps, not on stop",
    );
    let long = "a".repeat(MAX_PATTERN_BYTES + 1);
    fails(&format!("  steps:\n  - kubectl: x\n    expect: {{matches: {long}}}\n"), 7, 23, "the limit is 4096");
}

#[test]
fn expectations_judge_output() {
    let e = Expect {
        contains: vec!["Running".into()],
        not_contains: vec!["Pending".into()],
        matches: vec!["^web-[a-z0-9]+ +1/1".into()],
        exit_code: Some(0),
    };
    let out = "NAME READY\nweb-abc12   1/1 Running\n";
    assert!(e.failures(out, 0).is_empty());
    let failed = e.failures("web-x 0/1 Pending\n", 1);
    assert_eq!(
        failed,
        [
            "expected the output to contain \"Running\"",
            "expected the output not to contain \"Pending\"",
            "expected the output to match \"^web-[a-z0-9]+ +1/1\"",
            "expected exit code 0, got 1",
        ]
    );
    assert!(compile_match("(").is_err());
}

/// Cuts, repeats and garbles a valid file in many ways: parsing never panics, an error always points inside
/// the text, and whatever still parses survives its canonical text.
#[test]
fn mangled_files_never_panic_and_errors_stay_inside_the_text() {
    let mut rng = Rng::new(99);
    let junk = [
        "",
        " ",
        "\n",
        "- ",
        ": ",
        "{",
        "}",
        "[",
        "]",
        "'",
        "\"",
        "#",
        "|",
        ">",
        "&a ",
        "*a",
        "!!str ",
        "\t",
        "---\n",
        "é",
        "\u{0}",
        "  ",
        "stop: etcd",
        "x: y\n",
    ];
    let chars: Vec<char> = EXAMPLE.chars().collect();
    for _ in 0..400 {
        let mut text = chars.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() as u64 + 1) as usize;
            match rng.below(3) {
                0 => {
                    let end = (at + rng.below(20) as usize).min(text.len());
                    text.drain(at..end);
                }
                1 => {
                    let piece = junk[rng.below(junk.len() as u64) as usize];
                    text.splice(at..at, piece.chars());
                }
                _ => text.truncate(at),
            }
        }
        let text: String = text.into_iter().collect();
        match parse(&text, "m.yaml") {
            Ok(s) => assert_eq!(ok(&to_yaml(&s)), s),
            Err(e) => {
                let lines = text.split('\n').count();
                assert!(e.line >= 1 && e.line <= lines + 1, "{e}\n{text}");
                assert!(e.column >= 1, "{e}");
                assert!(!e.message.is_empty());
            }
        }
    }
}
