//! `kubectl get` tables: the apiserver's table for a kind ([`crate::apiserver::printers`]: every column
//! and its priority, a row of cells per object) as kubectl prints it: priority-1 ("wide") columns dropped
//! unless `-o wide`, headers upper-cased, cells cleaned for the terminal, and the table decorated
//! (`NAMESPACE` first with `-A`, `kind/name` when several types are listed, `LABELS` last with
//! `--show-labels`).

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core;

use super::duration::{micro_time_ms, time_ms};
use super::table::{clean_cell, escape_terminal, with_labels, with_namespace, Table};
use crate::api::{Kind, Object};
use crate::apiserver::printers::{cells, columns};
use crate::sim::SimTime;

/// How `kubectl get` decorates a table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetOptions {
    /// `-o wide`.
    pub wide: bool,
    /// `-A`: a first NAMESPACE column (namespaced kinds only).
    pub all_namespaces: bool,
    /// Several resource types in one command: names print as `kind[.group]/name`.
    pub show_kind: bool,
    /// `--show-labels`: a last LABELS column.
    pub show_labels: bool,
    /// `-L key1,key2`: one column per label key.
    pub label_columns: Vec<String>,
}

/// The table `kubectl get <kind>` prints for `objects` (undecorated).
pub fn table_for(kind: Kind, objects: &[Arc<Object>], now: SimTime, wide: bool) -> Table {
    get_table(kind, objects, now, &GetOptions { wide, ..Default::default() })
}

/// The table `kubectl get <kind>` prints for `objects`, decorated per `opts`.
pub fn get_table(kind: Kind, objects: &[Arc<Object>], now: SimTime, opts: &GetOptions) -> Table {
    let cols = columns(kind);
    let shape: Vec<(&str, bool, bool)> = cols.iter().map(|c| (c.name, c.wide, c.is_name)).collect();
    let ordered = crate::apiserver::printers::row_order(kind, objects);
    let rows = ordered.iter().map(|obj| cells(obj, kind, now)).collect();
    lay_out(kind.info(), &shape, rows, objects, opts)
}

/// A Table as kubectl prints it: the columns (name, shown only with `-o wide`, holds the object's name) and
/// each row's cells, wide columns dropped unless asked for, headers upper-cased, names `kind[.group]/name`
/// when several types are listed, cells cleaned, then the decorations `opts` asks for.
fn lay_out(
    info: &crate::api::ResourceInfo,
    columns: &[(&str, bool, bool)],
    rows: Vec<Vec<String>>,
    objects: &[Arc<Object>],
    opts: &GetOptions,
) -> Table {
    let keep: Vec<bool> = columns.iter().map(|(_, wide, _)| opts.wide || !wide).collect();
    let name_col = if opts.show_kind { columns.iter().position(|(_, _, is_name)| *is_name) } else { None };
    let kind = info.kind.name().to_ascii_lowercase();
    let kind_prefix = if info.group.is_empty() { kind } else { format!("{kind}.{}", info.group) };
    let mut table = Table {
        headers: columns.iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| c.0.to_ascii_uppercase()).collect(),
        rows: Vec::new(),
    };
    for mut cells in rows {
        cells.resize(columns.len(), String::new());
        if let Some(i) = name_col {
            cells[i] = format!("{kind_prefix}/{}", cells[i]);
        }
        table.rows.push(cells.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(v, _)| clean_cell(&v)).collect());
    }
    decorate(table, info.namespaced, objects, opts)
}

/// `-A`'s NAMESPACE column, `-L`'s label columns and `--show-labels`' LABELS column.
fn decorate(mut table: Table, namespaced: bool, objects: &[Arc<Object>], opts: &GetOptions) -> Table {
    if opts.all_namespaces && namespaced {
        table = with_namespace(table, objects);
    }
    for key in &opts.label_columns {
        let header = key.rsplit('/').next().unwrap_or(key).to_ascii_uppercase();
        let values = objects
            .iter()
            .map(|o| clean_cell(o.meta().labels.as_ref().and_then(|l| l.get(key)).map(String::as_str).unwrap_or("")))
            .collect();
        table.append_column(&header, values);
    }
    if opts.show_labels {
        table = with_labels(table, objects);
    }
    table
}

/// The table `kubectl get` prints for a custom resource: the apiserver's Table (its columns and each
/// object's typed cells) as kubectl prints any Table, decorated per `opts`. A cell the server left empty
/// (`null`) prints as nothing; numbers and booleans as Go prints them.
pub fn custom_table(
    info: &crate::api::ResourceInfo,
    columns: &[crate::api::TableColumn],
    rows: &[(Vec<serde_json::Value>, Arc<Object>)],
    opts: &GetOptions,
) -> Table {
    let shape: Vec<(&str, bool, bool)> =
        columns.iter().map(|c| (c.name.as_str(), c.priority != 0, c.format == "name")).collect();
    let text = |c: &serde_json::Value| match c {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => crate::api::jsonpath::go_v(other),
    };
    let texts = rows.iter().map(|(cells, _)| cells.iter().map(text).collect()).collect();
    let objects: Vec<Arc<Object>> = rows.iter().map(|(_, o)| Arc::clone(o)).collect();
    lay_out(info, &shape, texts, &objects, opts)
}

/// The table of `kubectl events` (not `kubectl get events`): sorted by the time each event last
/// happened, `Kind/name` objects, a NAMESPACE column with `-A`. Objects that are not events are
/// skipped; when none remain kubectl prints [`no_events_found`] on stderr instead.
pub fn events_table(events: &[Arc<Object>], now: SimTime, all_namespaces: bool) -> Table {
    let mut list: Vec<&core::Event> = events
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::Event(e) => Some(&**e),
            _ => None,
        })
        .collect();
    let when = |e: &core::Event| {
        if let Some(series) = &e.series {
            series.last_observed_time.as_ref().map(micro_time_ms)
        } else if let Some(t) = &e.last_timestamp {
            Some(time_ms(t))
        } else {
            e.event_time.as_ref().map(micro_time_ms)
        }
        .unwrap_or(i64::MIN)
    };
    list.sort_by_key(|e| when(e));
    let mut headers: Vec<String> =
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].iter().map(|h| h.to_string()).collect();
    if all_namespaces {
        headers.insert(0, "NAMESPACE".to_string());
    }
    let rows = list
        .into_iter()
        .map(|e| {
            let interval = super::duration::event_interval(e, now);
            let obj = &e.involved_object;
            let mut row = vec![
                interval,
                escape_terminal(opt(&e.type_)),
                escape_terminal(opt(&e.reason)),
                format!("{}/{}", escape_terminal(opt(&obj.kind)), escape_terminal(opt(&obj.name))),
                escape_terminal(opt(&e.message).trim()),
            ];
            if all_namespaces {
                row.insert(0, opt(&e.metadata.namespace).to_string());
            }
            row
        })
        .collect();
    Table { headers, rows }
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// `kubectl events`' stderr line when there is nothing to show.
pub fn no_events_found(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No events found in {ns} namespace.\n"),
        None => "No events found.\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Objects start at 2025-09-01T00:00:00Z (SimTime zero); tests look at them later.
    fn obj(kind: Kind, yaml: &str) -> Arc<Object> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).expect("yaml");
        Arc::new(Object::from_json_as(kind, value).expect("object"))
    }

    fn at(secs: u64) -> SimTime {
        SimTime(secs * 1000)
    }

    fn render(kind: Kind, objs: &[Arc<Object>], now: SimTime, wide: bool) -> String {
        table_for(kind, objs, now, wide).render(false)
    }

    const RUNNING_POD: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web-7c5ddbdf54-x2x9q
  namespace: default
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {app: web, pod-template-hash: 7c5ddbdf54}
spec:
  nodeName: node1
  containers:
  - name: web
    image: nginx:1.27
status:
  phase: Running
  podIP: 10.244.1.5
  podIPs: [{ip: 10.244.1.5}]
  conditions:
  - {type: Ready, status: "True"}
  containerStatuses:
  - name: web
    image: nginx:1.27
    imageID: ""
    ready: true
    restartCount: 0
    state: {running: {startedAt: "2025-09-01T00:00:05Z"}}
"#;

    #[test]
    fn a_running_pod_prints_ready_status_restarts_and_age() {
        let pod = obj(Kind::Pod, RUNNING_POD);
        assert_eq!(
            render(Kind::Pod, std::slice::from_ref(&pod), at(150), false),
            "NAME                   READY   STATUS    RESTARTS   AGE\n\
             web-7c5ddbdf54-x2x9q   1/1     Running   0          2m30s\n"
        );
        assert_eq!(
            render(Kind::Pod, &[pod], at(119), true),
            "NAME                   READY   STATUS    RESTARTS   AGE    IP           NODE    NOMINATED NODE   READINESS GATES\n\
             web-7c5ddbdf54-x2x9q   1/1     Running   0          119s   10.244.1.5   node1   <none>           <none>\n"
        );
    }

    #[test]
    fn a_crash_looping_pod_shows_the_waiting_reason_and_when_it_last_restarted() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: crashy, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  containers: [{name: app, image: busybox}]
status:
  phase: Running
  containerStatuses:
  - name: app
    ready: false
    restartCount: 3
    state: {waiting: {reason: CrashLoopBackOff, message: "back-off 40s"}}
    lastState: {terminated: {exitCode: 1, reason: Error, finishedAt: "2025-09-01T00:09:15Z"}}
"#,
        );
        let t = table_for(Kind::Pod, &[pod], at(600), false);
        assert_eq!(t.rows[0], vec!["crashy", "0/1", "CrashLoopBackOff", "3 (45s ago)", "10m"]);
    }

    #[test]
    fn a_deleted_pod_is_terminating_and_a_lost_node_makes_it_unknown() {
        let mut yaml = RUNNING_POD.replace(
            "  creationTimestamp: \"2025-09-01T00:00:00Z\"\n",
            "  creationTimestamp: \"2025-09-01T00:00:00Z\"\n  deletionTimestamp: \"2025-09-01T00:01:00Z\"\n",
        );
        let pod = obj(Kind::Pod, &yaml);
        assert_eq!(table_for(Kind::Pod, &[pod], at(70), false).rows[0][2], "Terminating");
        yaml = yaml.replace("  phase: Running\n", "  phase: Running\n  reason: NodeLost\n");
        let pod = obj(Kind::Pod, &yaml);
        assert_eq!(table_for(Kind::Pod, &[pod], at(70), false).rows[0][2], "Unknown");
        let done = obj(
            Kind::Pod,
            r#"
metadata: {name: done, deletionTimestamp: "2025-09-01T00:01:00Z"}
spec: {containers: [{name: c}]}
status:
  phase: Succeeded
  containerStatuses:
  - {name: c, ready: false, restartCount: 0, state: {terminated: {exitCode: 0, reason: Completed}}}
"#,
        );
        let row = &table_for(Kind::Pod, &[done], at(70), false).rows[0];
        assert_eq!(row[2], "Completed");
        assert_eq!(row[4], "<unknown>");
    }

    #[test]
    fn init_containers_report_progress_and_failures() {
        let waiting = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}, {name: b}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: true, restartCount: 0, state: {terminated: {exitCode: 0, reason: Completed}}}
  - {name: b, ready: false, restartCount: 0, state: {running: {}}}
  containerStatuses:
  - {name: main, ready: false, restartCount: 0, state: {waiting: {reason: PodInitializing}}}
"#,
        );
        assert_eq!(
            table_for(Kind::Pod, &[waiting], at(5), false).rows[0][1..3],
            ["0/1".to_string(), "Init:1/2".to_string()]
        );
        let failed = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: false, restartCount: 2, state: {terminated: {exitCode: 3}}, lastState: {terminated: {exitCode: 3, finishedAt: "2025-09-01T00:00:02Z"}}}
"#,
        );
        assert_eq!(
            table_for(Kind::Pod, &[failed], at(5), false).rows[0][2..4],
            ["Init:ExitCode:3".to_string(), "2 (3s ago)".to_string()]
        );
        let backoff = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: false, restartCount: 0, state: {waiting: {reason: ImagePullBackOff}}}
"#,
        );
        assert_eq!(table_for(Kind::Pod, &[backoff], at(5), false).rows[0][2], "Init:ImagePullBackOff");
    }

    #[test]
    fn sidecar_containers_count_towards_ready_and_total() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: sidecar}
spec:
  initContainers: [{name: proxy, restartPolicy: Always}]
  containers: [{name: app}]
status:
  phase: Running
  conditions: [{type: Initialized, status: "True"}, {type: Ready, status: "True"}]
  initContainerStatuses:
  - {name: proxy, ready: true, started: true, restartCount: 1, state: {running: {}}, lastState: {terminated: {exitCode: 137, finishedAt: "2025-09-01T00:00:30Z"}}}
  containerStatuses:
  - {name: app, ready: true, restartCount: 0, state: {running: {}}}
"#,
        );
        let row = &table_for(Kind::Pod, &[pod], at(90), false).rows[0];
        assert_eq!(row[1..4], ["2/2".to_string(), "Running".to_string(), "1 (60s ago)".to_string()]);
    }

    #[test]
    fn terminated_containers_without_reason_show_exit_code_or_signal() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: p}
spec: {containers: [{name: a}, {name: b}]}
status:
  phase: Failed
  containerStatuses:
  - {name: a, ready: false, restartCount: 0, state: {terminated: {exitCode: 2}}}
  - {name: b, ready: false, restartCount: 0, state: {terminated: {exitCode: 0, signal: 9}}}
"#,
        );
        // The first container's state wins (statuses are walked last to first).
        assert_eq!(table_for(Kind::Pod, &[pod], at(5), false).rows[0][2], "ExitCode:2");
        let gated = obj(
            Kind::Pod,
            r#"
metadata: {name: g}
spec: {containers: [{name: a}], schedulingGates: [{name: x}]}
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: SchedulingGated}]
"#,
        );
        assert_eq!(table_for(Kind::Pod, &[gated], at(5), false).rows[0][2], "SchedulingGated");
    }

    #[test]
    fn a_pod_with_no_status_at_all_still_prints() {
        let pod = obj(Kind::Pod, "metadata: {name: bare}\n");
        let t = table_for(Kind::Pod, &[pod], at(5), true);
        assert_eq!(t.rows[0], vec!["bare", "0/0", "", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"]);
    }

    #[test]
    fn nodes_show_readiness_cordoning_and_roles() {
        let nodes = [
            obj(
                Kind::Node,
                r#"
metadata:
  name: controlplane
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {node-role.kubernetes.io/control-plane: ""}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 172.18.0.2}, {type: Hostname, address: controlplane}]
  nodeInfo: {kubeletVersion: v1.34.0, osImage: Debian GNU/Linux 12 (bookworm), kernelVersion: 6.8.0, containerRuntimeVersion: containerd://2.1.3, machineID: "", systemUUID: "", bootID: "", kubeProxyVersion: "", operatingSystem: linux, architecture: amd64}
"#,
            ),
            obj(
                Kind::Node,
                r#"
metadata: {name: node2, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {unschedulable: true}
status:
  conditions: [{type: Ready, status: Unknown}]
  nodeInfo: {kubeletVersion: v1.34.0}
"#,
            ),
            obj(Kind::Node, "metadata: {name: node3, labels: {kubernetes.io/role: worker}}\n"),
        ];
        let now = SimTime((3 * 86_400 + 4 * 3600) * 1000);
        assert_eq!(
            render(Kind::Node, &nodes, now, false),
            "NAME           STATUS                        ROLES           AGE         VERSION\n\
             controlplane   Ready                         control-plane   3d4h        v1.34.0\n\
             node2          NotReady,SchedulingDisabled   <none>          3d4h        v1.34.0\n\
             node3          Unknown                       worker          <unknown>   \n"
        );
        let wide = table_for(Kind::Node, &nodes[..1], now, true);
        assert_eq!(
            wide.rows[0][5..],
            [
                "172.18.0.2".to_string(),
                "<none>".to_string(),
                "Debian GNU/Linux 12 (bookworm)".to_string(),
                "6.8.0".to_string(),
                "containerd://2.1.3".to_string()
            ]
        );
    }

    #[test]
    fn services_show_cluster_ip_external_ip_and_ports_by_type() {
        let svcs = [
            obj(
                Kind::Service,
                r#"
metadata: {name: kubernetes, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ClusterIP, clusterIP: 10.96.0.1, clusterIPs: [10.96.0.1], ports: [{port: 443, protocol: TCP, targetPort: 6443}]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: web, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  type: NodePort
  clusterIPs: [10.96.12.7]
  selector: {app: web}
  ports: [{port: 80, nodePort: 30080, protocol: TCP}, {port: 443, nodePort: 30443, protocol: TCP}]
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: lb, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: LoadBalancer, clusterIPs: [10.96.3.3], ports: [{port: 80, nodePort: 31000, protocol: UDP}]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: headless, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ClusterIP, clusterIP: None, clusterIPs: [None]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: ext, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ExternalName, externalName: example.com}
"#,
            ),
        ];
        assert_eq!(
            render(Kind::Service, &svcs, at(8 * 3600), true),
            "NAME         TYPE           CLUSTER-IP   EXTERNAL-IP   PORT(S)                      AGE   SELECTOR\n\
             kubernetes   ClusterIP      10.96.0.1    <none>        443/TCP                      8h    <none>\n\
             web          NodePort       10.96.12.7   <none>        80:30080/TCP,443:30443/TCP   8h    app=web\n\
             lb           LoadBalancer   10.96.3.3    <pending>     80:31000/UDP                 8h    <none>\n\
             headless     ClusterIP      None         <none>        <none>                       8h    <none>\n\
             ext          ExternalName   <none>       example.com   <none>                       8h    <none>\n"
        );
    }

    #[test]
    fn endpoints_list_three_addresses_then_count_the_rest() {
        let ep = obj(
            Kind::Endpoints,
            r#"
metadata: {name: web}
subsets:
- addresses: [{ip: 10.0.0.1}, {ip: 10.0.0.2}, {ip: 10.0.0.3}, {ip: 10.0.0.4}]
  notReadyAddresses: [{ip: 10.0.0.9}]
  ports: [{port: 80}, {port: 443}]
"#,
        );
        let none = obj(Kind::Endpoints, "metadata: {name: empty}\n");
        let unready = obj(
            Kind::Endpoints,
            "metadata: {name: unready}\nsubsets: [{notReadyAddresses: [{ip: 10.0.0.9}], ports: [{port: 80}]}]\n",
        );
        let t = table_for(Kind::Endpoints, &[ep, none, unready], at(5), false);
        assert_eq!(t.rows[0][1], "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 5 more...");
        assert_eq!(t.rows[1][1], "<none>");
        assert_eq!(t.rows[2][1], "");
    }

    #[test]
    fn endpoint_slices_list_ports_and_all_addresses() {
        let es = obj(
            Kind::EndpointSlice,
            r#"
metadata: {name: web-abcde}
addressType: IPv4
ports: [{name: http, port: 80, protocol: TCP}]
endpoints:
- {addresses: [10.0.0.1], conditions: {ready: true}}
- {addresses: [10.0.0.2], conditions: {ready: false}}
"#,
        );
        let empty = obj(Kind::EndpointSlice, "metadata: {name: x}\naddressType: IPv4\nendpoints: []\n");
        let t = table_for(Kind::EndpointSlice, &[es, empty], at(5), false);
        assert_eq!(t.headers, ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]);
        assert_eq!(t.rows[0][2..4], ["80".to_string(), "10.0.0.1,10.0.0.2".to_string()]);
        assert_eq!(t.rows[1][2..4], ["<unset>".to_string(), "<unset>".to_string()]);
    }

    #[test]
    fn workloads_show_replica_counts() {
        let deploy = obj(
            Kind::Deployment,
            r#"
metadata: {name: web, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}, {name: side, image: busybox}]}
status: {replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2}
"#,
        );
        assert_eq!(
            render(Kind::Deployment, &[deploy], at(10 * 60), true),
            "NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES               SELECTOR\n\
             web    2/3     3            2           10m   nginx,side   nginx:1.27,busybox   app=web\n"
        );
        let rs = obj(
            Kind::ReplicaSet,
            r#"
metadata: {name: web-7c5ddbdf54}
spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {spec: {containers: [{name: nginx, image: nginx}]}}}
status: {replicas: 3, readyReplicas: 3}
"#,
        );
        assert_eq!(
            table_for(Kind::ReplicaSet, &[rs], at(5), false).rows[0],
            vec!["web-7c5ddbdf54", "3", "3", "3", "<unknown>"]
        );
        let ds = obj(
            Kind::DaemonSet,
            r#"
metadata: {name: kube-proxy}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template: {spec: {nodeSelector: {kubernetes.io/os: linux}, containers: [{name: kube-proxy}]}}
status: {desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2, numberMisscheduled: 0}
"#,
        );
        let t = table_for(Kind::DaemonSet, &[ds], at(5), false);
        assert_eq!(
            t.headers,
            ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]
        );
        assert_eq!(t.rows[0][1..7], ["3", "3", "2", "3", "2", "kubernetes.io/os=linux"].map(String::from));
        let sts = obj(
            Kind::StatefulSet,
            "metadata: {name: db}\nspec: {replicas: 2, selector: {}, serviceName: db, template: {}}\nstatus: {replicas: 2, readyReplicas: 1}\n",
        );
        assert_eq!(table_for(Kind::StatefulSet, &[sts], at(5), false).rows[0][1], "1/2");
    }

    #[test]
    fn jobs_show_status_completions_and_duration() {
        let running = obj(
            Kind::Job,
            r#"
metadata: {name: pi, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {completions: 3, parallelism: 1, template: {spec: {containers: [{name: pi, image: perl}]}}}
status: {startTime: "2025-09-01T00:00:01Z", succeeded: 1, active: 1}
"#,
        );
        let complete = obj(
            Kind::Job,
            r#"
metadata: {name: done, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {template: {}}
status:
  startTime: "2025-09-01T00:00:00Z"
  completionTime: "2025-09-01T00:00:12Z"
  succeeded: 1
  conditions: [{type: SuccessCriteriaMet, status: "True"}, {type: Complete, status: "True"}]
"#,
        );
        let failed = obj(
            Kind::Job,
            r#"
metadata: {name: bad}
spec: {parallelism: 2, template: {}}
status: {conditions: [{type: Failed, status: "True"}]}
"#,
        );
        let suspended = obj(
            Kind::Job,
            "metadata: {name: s}\nspec: {template: {}}\nstatus: {conditions: [{type: Suspended, status: \"True\"}]}\n",
        );
        assert_eq!(
            render(Kind::Job, &[running, complete, failed, suspended], at(61), false),
            "NAME   STATUS      COMPLETIONS   DURATION   AGE\n\
             pi     Running     1/3           60s        61s\n\
             done   Complete    1/1           12s        61s\n\
             bad    Failed      0/1 of 2                 <unknown>\n\
             s      Suspended   0/1                      <unknown>\n"
        );
    }

    #[test]
    fn events_print_last_seen_type_reason_object_and_message() {
        let events = [
            obj(
                Kind::Event,
                r#"
metadata: {name: web.1}
involvedObject: {kind: Pod, name: web-7c5ddbdf54-x2x9q, fieldPath: "spec.containers{web}"}
reason: BackOff
message: "Back-off restarting failed container web in pod web_default(uid)\n"
type: Warning
count: 5
firstTimestamp: "2025-09-01T00:00:00Z"
lastTimestamp: "2025-09-01T00:02:00Z"
source: {component: kubelet, host: node1}
"#,
            ),
            obj(
                Kind::Event,
                r#"
metadata: {name: web.2}
involvedObject: {kind: Deployment, name: web}
reason: ScalingReplicaSet
message: Scaled up replica set web-7c5ddbdf54 from 0 to 3
type: Normal
eventTime: "2025-09-01T00:01:00.000000Z"
reportingComponent: deployment-controller
"#,
            ),
        ];
        assert_eq!(
            render(Kind::Event, &events, at(180), false),
            "LAST SEEN   TYPE      REASON              OBJECT                     MESSAGE\n\
             60s         Warning   BackOff             pod/web-7c5ddbdf54-x2x9q   Back-off restarting failed container web in pod web_default(uid)\n\
             2m          Normal    ScalingReplicaSet   deployment/web             Scaled up replica set web-7c5ddbdf54 from 0 to 3\n"
        );
        let wide = table_for(Kind::Event, &events, at(180), true);
        assert_eq!(
            wide.headers,
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
        );
        assert_eq!(wide.rows[0][4..6], ["spec.containers{web}".to_string(), "kubelet, node1".to_string()]);
        assert_eq!(wide.rows[0][7..], ["3m".to_string(), "5".to_string(), "web.1".to_string()]);
        assert_eq!(wide.rows[1][8], "1");
    }

    #[test]
    fn config_and_rbac_kinds_use_their_own_columns() {
        let cm = obj(Kind::ConfigMap, "metadata: {name: cfg}\ndata: {a: '1', b: '2'}\nbinaryData: {c: AA==}\n");
        assert_eq!(table_for(Kind::ConfigMap, &[cm], at(5), false).rows[0][1], "3");
        let secret = obj(Kind::Secret, "metadata: {name: s}\ntype: Opaque\ndata: {k: dg==}\n");
        assert_eq!(
            table_for(Kind::Secret, &[secret], at(5), false).rows[0][1..3],
            ["Opaque".to_string(), "1".to_string()]
        );
        let sa = obj(Kind::ServiceAccount, "metadata: {name: default}\n");
        assert_eq!(table_for(Kind::ServiceAccount, &[sa], at(5), false).headers, ["NAME", "SECRETS", "AGE"]);
        let role = obj(Kind::ClusterRole, "metadata: {name: admin, creationTimestamp: \"2025-09-01T00:00:07Z\"}\n");
        let t = table_for(Kind::ClusterRole, &[role], at(5), false);
        assert_eq!(t.render(false), "NAME    CREATED AT\nadmin   2025-09-01T00:00:07Z\n");
        let rb = obj(
            Kind::RoleBinding,
            r#"
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: User, name: jane}
- {kind: Group, name: devs}
- {kind: ServiceAccount, name: bot, namespace: ci}
- {kind: User, name: joe}
"#,
        );
        assert_eq!(
            table_for(Kind::RoleBinding, &[rb], at(5), true).rows[0][1..],
            ["ClusterRole/view", "<unknown>", "jane, joe", "devs", "ci/bot"].map(String::from)
        );
        let ns = obj(Kind::Namespace, "metadata: {name: dev}\nstatus: {phase: Terminating}\n");
        assert_eq!(table_for(Kind::Namespace, &[ns], at(5), false).rows[0][1], "Terminating");
        let lease = obj(Kind::Lease, "metadata: {name: node1}\nspec: {holderIdentity: node1}\n");
        assert_eq!(table_for(Kind::Lease, &[lease], at(5), false).rows[0][1], "node1");
    }

    #[test]
    fn storage_quota_and_policy_kinds_follow_the_server_printers() {
        let pv = obj(
            Kind::PersistentVolume,
            r#"
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteMany, ReadWriteOnce], persistentVolumeReclaimPolicy: Retain, storageClassName: standard, claimRef: {namespace: default, name: data}}
status: {phase: Bound}
"#,
        );
        assert_eq!(
            table_for(Kind::PersistentVolume, &[pv], at(5), true).rows[0],
            vec![
                "pv1",
                "1Gi",
                "RWO,RWX",
                "Retain",
                "Bound",
                "default/data",
                "standard",
                "<unset>",
                "",
                "<unknown>",
                "<unset>"
            ]
        );
        let pending = obj(
            Kind::PersistentVolumeClaim,
            "metadata: {name: data}\nspec: {storageClassName: standard, resources: {requests: {storage: 1Gi}}}\nstatus: {phase: Pending}\n",
        );
        assert_eq!(
            table_for(Kind::PersistentVolumeClaim, &[pending], at(5), false).rows[0][..6],
            ["data", "Pending", "", "", "", "standard"].map(String::from)
        );
        let sc = obj(
            Kind::StorageClass,
            "metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}}\nprovisioner: rancher.io/local-path\nvolumeBindingMode: WaitForFirstConsumer\n",
        );
        assert_eq!(
            table_for(Kind::StorageClass, &[sc], at(5), false).rows[0][..5],
            ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", "false"]
                .map(String::from)
        );
        let quota = obj(
            Kind::ResourceQuota,
            r#"
metadata: {name: compute}
spec: {hard: {pods: "10"}}
status:
  hard: {limits.cpu: "4", limits.memory: 8Gi, pods: "10", requests.cpu: "2"}
  used: {limits.cpu: 500m, pods: "3", requests.cpu: 250m}
"#,
        );
        assert_eq!(
            table_for(Kind::ResourceQuota, &[quota], at(5), false).rows[0],
            vec![
                "compute",
                "<unknown>",
                "pods: 3/10, requests.cpu: 250m/2",
                "limits.cpu: 500m/4, limits.memory: 0/8Gi"
            ]
        );
        let pc = obj(
            Kind::PriorityClass,
            "metadata: {name: system-node-critical}\nvalue: 2000001000\npreemptionPolicy: PreemptLowerPriority\n",
        );
        assert_eq!(
            table_for(Kind::PriorityClass, &[pc], at(5), false).headers,
            ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
        );
        let pdb = obj(Kind::PodDisruptionBudget, "metadata: {name: web}\nspec: {minAvailable: 2}\nstatus: {disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3}\n");
        assert_eq!(
            table_for(Kind::PodDisruptionBudget, &[pdb], at(5), false).rows[0][1..4],
            ["2", "N/A", "1"].map(String::from)
        );
        let np = obj(Kind::NetworkPolicy, "metadata: {name: deny}\nspec: {podSelector: {}}\n");
        assert_eq!(table_for(Kind::NetworkPolicy, &[np], at(5), false).rows[0][1], "<none>");
        let hpa = obj(
            Kind::HorizontalPodAutoscaler,
            r#"
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
status: {currentReplicas: 2, desiredReplicas: 2}
"#,
        );
        assert_eq!(
            table_for(Kind::HorizontalPodAutoscaler, &[hpa], at(5), false).rows[0][1..6],
            ["Deployment/web", "cpu: <unknown>/50%", "1", "5", "2"].map(String::from)
        );
        let cr = obj(
            Kind::ControllerRevision,
            "metadata: {name: kube-proxy-5d8b7d5b8f, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: kube-proxy, uid: u, controller: true}]}\nrevision: 1\n",
        );
        assert_eq!(
            table_for(Kind::ControllerRevision, &[cr], at(5), false).rows[0][1..3],
            ["daemonset.apps/kube-proxy", "1"].map(String::from)
        );
        let ing = obj(
            Kind::Ingress,
            "metadata: {name: web}\nspec: {ingressClassName: nginx, rules: [{host: a.example.com}, {host: b.example.com}], tls: [{hosts: [a.example.com]}]}\nstatus: {loadBalancer: {ingress: [{ip: 172.18.0.5}]}}\n",
        );
        assert_eq!(
            table_for(Kind::Ingress, &[ing], at(5), false).rows[0][1..5],
            ["nginx", "a.example.com,b.example.com", "172.18.0.5", "80, 443"].map(String::from)
        );
        let cj = obj(
            Kind::CronJob,
            "metadata: {name: hello}\nspec: {schedule: '*/1 * * * *', suspend: false, jobTemplate: {spec: {template: {}}}}\n",
        );
        assert_eq!(
            table_for(Kind::CronJob, &[cj], at(5), false).rows[0][1..6],
            ["*/1 * * * *", "<none>", "False", "0", "<none>"].map(String::from)
        );
    }

    #[test]
    fn kubectl_events_sorts_by_time_and_names_objects_by_kind() {
        let events = [
            obj(
                Kind::Event,
                r#"
metadata: {name: b, namespace: default}
involvedObject: {kind: Pod, name: web}
reason: BackOff
message: back-off
type: Warning
count: 3
firstTimestamp: "2025-09-01T00:00:10Z"
lastTimestamp: "2025-09-01T00:01:10Z"
"#,
            ),
            obj(
                Kind::Event,
                r#"
metadata: {name: a, namespace: default}
involvedObject: {kind: Pod, name: web}
reason: Scheduled
message: Successfully assigned default/web to node1
type: Normal
eventTime: "2025-09-01T00:00:01.000000Z"
"#,
            ),
        ];
        let t = events_table(&events, at(120), true);
        assert_eq!(
            t.render(false),
            "NAMESPACE   LAST SEEN            TYPE      REASON      OBJECT    MESSAGE\n\
             default     119s                 Normal    Scheduled   Pod/web   Successfully assigned default/web to node1\n\
             default     50s (x3 over 110s)   Warning   BackOff     Pod/web   back-off\n"
        );
        assert_eq!(no_events_found(Some("default")), "No events found in default namespace.\n");
        assert_eq!(no_events_found(None), "No events found.\n");
    }

    #[test]
    fn decorations_add_namespace_kind_prefix_and_labels() {
        let pod = obj(Kind::Pod, RUNNING_POD);
        let opts = GetOptions {
            all_namespaces: true,
            show_kind: true,
            show_labels: true,
            label_columns: vec!["app".to_string()],
            ..Default::default()
        };
        let t = get_table(Kind::Pod, &[pod], at(30), &opts);
        assert_eq!(
            t.render(false),
            "NAMESPACE   NAME                       READY   STATUS    RESTARTS   AGE   APP   LABELS\n\
             default     pod/web-7c5ddbdf54-x2x9q   1/1     Running   0          30s   web   app=web,pod-template-hash=7c5ddbdf54\n"
        );
        let node = obj(Kind::Node, "metadata: {name: n1}\n");
        let t = get_table(Kind::Node, &[node], at(30), &opts);
        assert_eq!(t.headers[0], "NAME");
        assert_eq!(t.rows[0][0], "node/n1");
        let deploy = obj(Kind::Deployment, "metadata: {name: web}\nspec: {selector: {}, template: {}}\n");
        let t = get_table(Kind::Deployment, &[deploy], at(30), &GetOptions { show_kind: true, ..Default::default() });
        assert_eq!(t.rows[0][0], "deployment.apps/web");
    }
}
