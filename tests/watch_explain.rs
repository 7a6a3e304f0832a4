//! `kubectl get -w` streaming (list, then one line per watch event, until interrupted or timed out) and
//! `kubectl explain`'s layout.

use kubeglass::cluster::Cluster;

use crate::kubectl;

#[test]
fn get_watch_prints_the_list_then_one_line_per_event_until_interrupted() {
    let mut c = Cluster::new_default(1);
    // Pods here stay unscheduled so that nothing but the test changes them.
    c.stop("kube-scheduler").unwrap();
    kubectl(&mut c, "run first --image=nginx");
    let (pid, _) = c.start_kubectl("get pods -w -o name", None);
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/first\n");
    kubectl(&mut c, "run second --image=nginx");
    kubectl(&mut c, "label pod first tier=web");
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/second\npod/first\n");
    kubectl(&mut c, "delete pod second --grace-period=0 --force");
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/second\n");
    assert_eq!(c.process_status(pid).and_then(|s| s.exit), None);
    c.interrupt(pid);
    assert!(c.process_status(pid).is_none());
    kubectl(&mut c, "run third --image=nginx");
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "");
}

#[test]
fn get_watch_only_skips_the_current_state_and_a_request_timeout_ends_the_watch() {
    let mut c = Cluster::new_default(1);
    // Pods here stay unscheduled so that nothing but the test changes them.
    c.stop("kube-scheduler").unwrap();
    kubectl(&mut c, "run first --image=nginx");
    let (pid, _) = c.start_kubectl("get pods --watch-only -o name --request-timeout=30s", None);
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "");
    kubectl(&mut c, "run second --image=nginx");
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/second\n");
    c.advance_ms(30_000);
    assert_eq!(c.process_status(pid).and_then(|s| s.exit), Some(0));
}

#[test]
fn a_watched_table_prints_its_header_once() {
    let mut c = Cluster::new_default(1);
    // Pods here stay unscheduled so that nothing but the test changes them.
    c.stop("kube-scheduler").unwrap();
    let (pid, _) = c.start_kubectl("get pods -w", None);
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "", "an empty list prints nothing, not even a header");
    kubectl(&mut c, "run a --image=nginx");
    kubectl(&mut c, "run b --image=nginx");
    c.advance_ms(1_000);
    let out = c.take_output(pid);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("NAME"), "{out}");
    assert!(lines[1].starts_with("a ") || lines[1] == "a", "{out}");
    assert!(lines[2].starts_with("b ") || lines[2] == "b", "{out}");
    c.interrupt(pid);
}

#[test]
fn watching_one_object_prints_it_then_only_its_changes() {
    let mut c = Cluster::new_default(1);
    // Pods here stay unscheduled so that nothing but the test changes them.
    c.stop("kube-scheduler").unwrap();
    kubectl(&mut c, "run a --image=nginx");
    kubectl(&mut c, "run b --image=nginx");
    let (pid, _) = c.start_kubectl("get pod a -w -o name", None);
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/a\n");
    kubectl(&mut c, "label pod b x=y");
    kubectl(&mut c, "label pod a x=y");
    c.advance_ms(1_000);
    assert_eq!(c.take_output(pid), "pod/a\n");
    c.interrupt(pid);
}

#[test]
fn a_scenario_watch_runs_until_the_command_time_limit() {
    let mut c = Cluster::new_default(1);
    // Pods here stay unscheduled so that nothing but the test changes them.
    c.stop("kube-scheduler").unwrap();
    kubectl(&mut c, "run a --image=nginx");
    let r = c.kubectl("get pods -w -o name", None, 5_000);
    assert_eq!((r.output.as_str(), r.exit), ("pod/a\n", None));
    let (out, code) = kubectl(&mut c, "get pods -w -o name --request-timeout=2s");
    assert_eq!((out.as_str(), code), ("pod/a\n", Some(0)));
}

#[test]
fn explain_prints_the_kind_header_description_and_sorted_fields() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "explain deployment");
    assert_eq!(code, Some(0));
    assert!(out.starts_with("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nDESCRIPTION:\n    "), "{out}");
    assert!(out.contains("\n    \nFIELDS:\n  apiVersion\t<string>\n"), "{out}");
    let order: Vec<usize> =
        ["  apiVersion\t", "  kind\t", "  metadata\t<ObjectMeta>", "  spec\t<DeploymentSpec>", "  status\t"]
            .iter()
            .map(|f| out.find(f).unwrap_or(usize::MAX))
            .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{out}");
    assert!(out.ends_with("\n\n\n"), "{out:?}");
    assert!(out.lines().all(|l| l.len() <= 80), "{out}");
}

#[test]
fn explain_follows_a_field_path_and_marks_required_fields_and_enums() {
    let mut c = Cluster::new_default(1);
    let (out, _) = kubectl(&mut c, "explain pods.spec.containers");
    assert!(
        out.starts_with("KIND:       Pod\nVERSION:    v1\n\nFIELD: containers <[]Container>\n\n\nDESCRIPTION:\n"),
        "{out}"
    );
    assert!(out.contains("\n  name\t<string> -required-\n"), "{out}");
    assert!(out.contains("\n  imagePullPolicy\t<string>\n  enum: Always, IfNotPresent, Never\n"), "{out}");
    let (out, _) = kubectl(&mut c, "explain svc.spec.type");
    assert!(
        out.starts_with("KIND:       Service\nVERSION:    v1\n\nFIELD: type <string>\nENUM:\n    ClusterIP\n    ExternalName\n    LoadBalancer\n    NodePort\n\nDESCRIPTION:\n"),
        "{out}"
    );
    assert!(!out.contains("FIELDS:"), "{out}");
    let (out, _) = kubectl(&mut c, "explain deployments.apps.spec.replicas");
    assert!(out.contains("FIELD: replicas <integer>\n"), "{out}");
}

#[test]
fn explain_recursive_lists_fields_of_fields_without_descriptions() {
    let mut c = Cluster::new_default(1);
    let (out, _) = kubectl(&mut c, "explain deployment.spec --recursive");
    assert!(out.contains("FIELDS:\n  minReadySeconds\t<integer>\n  paused\t<boolean>\n"), "{out}");
    assert!(
        out.contains("\n  selector\t<LabelSelector> -required-\n    matchExpressions\t<[]LabelSelectorRequirement>\n"),
        "{out}"
    );
    assert!(out.contains("\n      containers\t<[]Container> -required-\n        args\t<[]string>\n"), "{out}");
}

#[test]
fn explain_refuses_unknown_resources_and_fields() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        kubectl(&mut c, "explain widgets"),
        ("the server doesn't have a resource type \"widgets\"\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "explain pods.spec.nope"),
        ("KIND:       Pod\nVERSION:    v1\n\nerror: field \"nope\" does not exist\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "explain"),
        (
            "error: You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n".to_string(),
            Some(1)
        )
    );
}

#[test]
fn explain_follows_deep_paths_through_lists_and_maps_of_any_kind() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "explain pod.spec.containers.livenessProbe.httpGet");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.starts_with("KIND:       Pod\nVERSION:    v1\n\nFIELD: httpGet <HTTPGetAction>\n\n\nDESCRIPTION:\n    "),
        "{out}"
    );
    assert!(out.contains("\nFIELDS:\n  host\t<string>\n"), "{out}");
    assert!(out.contains("\n  port\t<IntOrString> -required-\n"), "{out}");
    assert!(out.contains("\n  scheme\t<string>\n  enum: HTTP, HTTPS\n"), "{out}");
    for (target, header) in [
        (
            "explain sts.spec.volumeClaimTemplates.spec.resources.requests",
            "GROUP:      apps\nKIND:       StatefulSet\nVERSION:    v1\n\nFIELD: requests <map[string]Quantity>\n",
        ),
        (
            "explain cronjobs.batch.spec.jobTemplate.spec.template.spec.containers.image",
            "GROUP:      batch\nKIND:       CronJob\nVERSION:    v1\n\nFIELD: image <string>\n",
        ),
        (
            "explain hpa.spec.metrics",
            "GROUP:      autoscaling\nKIND:       HorizontalPodAutoscaler\nVERSION:    v2\n\nFIELD: metrics <[]MetricSpec>\n",
        ),
        (
            "explain ingress.spec.rules.http.paths.pathType",
            "GROUP:      networking.k8s.io\nKIND:       Ingress\nVERSION:    v1\n\nFIELD: pathType <string>\nENUM:\n    Exact\n    ImplementationSpecific\n    Prefix\n\n",
        ),
        (
            "explain pod.metadata.ownerReferences",
            "KIND:       Pod\nVERSION:    v1\n\nFIELD: ownerReferences <[]OwnerReference>\n",
        ),
    ] {
        let (out, code) = kubectl(&mut c, target);
        assert_eq!(code, Some(0), "{target}: {out}");
        assert!(out.starts_with(header), "{target}: {out}");
    }
    // A map of plain values and a primitive end the path without a FIELDS list.
    let (out, _) = kubectl(&mut c, "explain sts.spec.volumeClaimTemplates.spec.resources.requests");
    assert!(!out.contains("FIELDS:"), "{out}");
    // The description of a field that leads to a type is the field's, then the type's.
    let (out, _) = kubectl(&mut c, "explain deploy.spec.strategy");
    let description = out.split("DESCRIPTION:\n").nth(1).unwrap_or_default();
    assert!(
        description.starts_with("    How old pods are replaced by new ones.\n    How a Deployment replaces"),
        "{out}"
    );
}

#[test]
fn explain_tells_the_two_event_kinds_apart() {
    let mut c = Cluster::new_default(1);
    let (core, _) = kubectl(&mut c, "explain events");
    assert!(core.starts_with("KIND:       Event\nVERSION:    v1\n"), "{core}");
    assert!(core.contains("\n  involvedObject\t<ObjectReference> -required-\n"), "{core}");
    let (v1, _) = kubectl(&mut c, "explain events.series --api-version=events.k8s.io/v1");
    assert!(
        v1.starts_with("GROUP:      events.k8s.io\nKIND:       Event\nVERSION:    v1\n\nFIELD: series <EventSeries>\n"),
        "{v1}"
    );
    assert!(v1.contains("\n  count\t<integer> -required-\n"), "{v1}");
    // As the real kubectl reads `events.events.k8s.io.series`: `events` (the core group's, first in the
    // mapper's order) begins the argument, so the rest is a field path of the core Event, and the error
    // names the path's last field.
    let (core_path, code) = kubectl(&mut c, "explain events.events.k8s.io.series");
    assert_eq!(
        (core_path.as_str(), code),
        ("KIND:       Event\nVERSION:    v1\n\nerror: field \"series\" does not exist\n", Some(1))
    );
}

#[test]
fn explain_covers_every_kind_api_resources_lists() {
    let mut c = Cluster::new_default(1);
    let (table, _) = kubectl(&mut c, "api-resources --no-headers");
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND: the resource with its group-version named (a name
    // qualified by its group would not do for events.events.k8s.io, which kubectl reads as the core
    // Event's field path).
    let names: Vec<String> = table
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let api_version = words.get(words.len().checked_sub(3)?)?;
            Some(format!("{} --api-version={api_version}", words[0]))
        })
        .collect();
    assert!(names.len() > 30, "{table}");
    for name in names {
        let (out, code) = kubectl(&mut c, &format!("explain {name}"));
        assert_eq!(code, Some(0), "{name}: {out}");
        assert!(out.contains("\nFIELDS:\n"), "{name}: {out}");
        let (out, code) = kubectl(&mut c, &format!("explain {name} --recursive"));
        assert_eq!(code, Some(0), "{name}: {out}");
        assert!(out.contains("\n  metadata\t<ObjectMeta>\n    annotations\t<map[string]string>\n"), "{name}: {out}");
    }
}

#[test]
fn explain_recursive_on_a_kind_lists_every_level_without_descriptions() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "explain pod --recursive");
    assert_eq!(code, Some(0));
    assert!(
        out.contains("\n      livenessProbe\t<Probe>\n        exec\t<ExecAction>\n          command\t<[]string>\n        failureThreshold\t<integer>\n"),
        "{out}"
    );
    assert!(
        out.contains("\n    dnsPolicy\t<string>\n    enum: ClusterFirst, ClusterFirstWithHostNet, Default, None\n"),
        "{out}"
    );
    let fields = out.split("FIELDS:\n").nth(1).unwrap_or_default();
    assert!(fields.lines().all(|l| l.is_empty() || l.contains('\t') || l.trim_start().starts_with("enum: ")), "{out}");
}

#[test]
fn explain_says_so_where_kubeglass_has_no_description_and_rejects_unknown_fields() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "explain pv.spec.scaleIO");
    assert_eq!(code, Some(0));
    assert!(out.contains("\nDESCRIPTION:\n    <empty>\nFIELDS:\n"), "{out}");
    assert!(out.contains("\n  gateway\t<string> -required-\n    <no description>\n\n"), "{out}");
    assert_eq!(
        kubectl(&mut c, "explain pod.spec.containers.livenessProbe.foo"),
        ("KIND:       Pod\nVERSION:    v1\n\nerror: field \"foo\" does not exist\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "explain deploy.spec.replicas.foo"),
        (
            "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nerror: field \"foo\" does not exist\n"
                .to_string(),
            Some(1)
        )
    );
}
