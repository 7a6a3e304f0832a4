//! `kubectl explain RESOURCE[.field.path] [--recursive]`, laid out as kubectl v1.34's OpenAPI v3 `plaintext`
//! template lays it out (GROUP/KIND/VERSION header, `FIELD: name <type>`, DESCRIPTION wrapped at 76 columns
//! and indented by four, FIELDS sorted by name with `<type>`, ` -required-` and `enum:` lines).
//!
//! The schema is a small hand-written table, not the server's OpenAPI document: the common kinds' top
//! level, and two levels for Pod, Deployment and Service (plus the object metadata, containers, selectors
//! and ports they lead to). The descriptions are kubeglass's own short wording, not the API's doc strings;
//! types, required markers and enums follow the v1.34 API. Paths into types the table does not describe
//! print their description without a FIELDS list, and `--recursive` stops where the table stops.

#[cfg(test)]
mod derive;

use crate::api::lookup;

use super::common;
use super::{Context, Failure};

/// One field of a schema.
struct Field {
    name: &'static str,
    /// The type as kubectl shows it: `string`, `integer`, `boolean`, `Object`, `[]Container`, `map[string]string`.
    ty: &'static str,
    /// The schema of the field's value (or of its items), when the table describes it.
    schema: Option<&'static str>,
    required: bool,
    enumeration: &'static [&'static str],
    doc: &'static str,
}

/// A named type and its fields.
struct Schema {
    name: &'static str,
    doc: &'static str,
    fields: &'static [Field],
}

const fn f(name: &'static str, ty: &'static str, doc: &'static str) -> Field {
    Field { name, ty, schema: None, required: false, enumeration: &[], doc }
}

const fn obj(name: &'static str, ty: &'static str, schema: &'static str, doc: &'static str) -> Field {
    Field { name, ty, schema: Some(schema), required: false, enumeration: &[], doc }
}

const fn req(field: Field) -> Field {
    Field { required: true, ..field }
}

const fn one_of(field: Field, values: &'static [&'static str]) -> Field {
    Field { enumeration: values, ..field }
}

const API_VERSION: Field =
    f("apiVersion", "string", "The versioned schema of this object, as group/version (or just the version for the core group). The server may convert objects to the version it prefers.");
const KIND: Field = f("kind", "string", "The REST kind of this object, in CamelCase. The server infers it from the endpoint a client writes to; it cannot be changed.");
const METADATA: Field = obj(
    "metadata",
    "ObjectMeta",
    "ObjectMeta",
    "Standard object metadata: name, namespace, labels, annotations and the fields the server maintains.",
);

static SCHEMAS: &[Schema] = &[
    Schema {
        name: "ObjectMeta",
        doc: "Metadata every persisted object carries: identity, labels and annotations, ownership, and bookkeeping the server fills in.",
        fields: &[
            obj("annotations", "map[string]string", "", "Unstructured key/value data kept with the object for tools and people; not used for selection."),
            f("creationTimestamp", "string", "When the server created the object (RFC 3339, UTC). Set by the server; read-only."),
            f("deletionGracePeriodSeconds", "integer", "Seconds the object is allowed to terminate gracefully before it is removed; set with deletionTimestamp."),
            f("deletionTimestamp", "string", "When the object will be deleted, set by the server when a graceful deletion is requested. Read-only."),
            obj("finalizers", "[]string", "", "Names of controllers that must finish clean-up before the object is removed from storage."),
            f("generateName", "string", "A prefix the server uses to generate a unique name when name is empty."),
            f("generation", "integer", "A sequence number of the desired state, bumped by the server when the spec changes. Read-only."),
            obj("labels", "map[string]string", "", "Key/value pairs used to organise and select objects (by selectors of services, controllers and kubectl -l)."),
            obj("managedFields", "[]ManagedFieldsEntry", "", "Which field manager owns which fields; maintained by the server for server-side apply."),
            f("name", "string", "The object's name, unique within its namespace for a kind. Required when creating, unless generateName is used; cannot be updated."),
            f("namespace", "string", "The namespace the object lives in. Empty for cluster-scoped kinds; defaults to \"default\" for namespaced ones."),
            obj("ownerReferences", "[]OwnerReference", "", "The objects this one depends on; the garbage collector removes it when they are gone."),
            f("resourceVersion", "string", "An opaque version the server changes on every write; used for optimistic concurrency and watches. Read-only."),
            f("selfLink", "string", "Deprecated and no longer set by the server."),
            f("uid", "string", "A unique identifier the server assigns at creation; never reused. Read-only."),
        ],
    },
    Schema {
        name: "Pod",
        doc: "A Pod is a group of containers that share a network namespace and storage and are scheduled together onto one node.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "PodSpec", "PodSpec", "The desired behaviour of the pod: its containers, volumes and scheduling constraints."),
            obj("status", "PodStatus", "PodStatus", "The most recently observed state of the pod, written by the kubelet and the scheduler. Read-only."),
        ],
    },
    Schema {
        name: "PodSpec",
        doc: "What a pod should run and how it should be scheduled.",
        fields: &[
            f("activeDeadlineSeconds", "integer", "How long the pod may be active on a node before the kubelet actively fails it."),
            obj("affinity", "Affinity", "", "Node affinity and pod (anti-)affinity scheduling constraints."),
            f("automountServiceAccountToken", "boolean", "Whether a service account token is mounted into the pod automatically."),
            req(obj("containers", "[]Container", "Container", "The containers of the pod. At least one is required; the list cannot be changed after creation.")),
            one_of(f("dnsPolicy", "string", "How DNS is set up for the pod. Defaults to ClusterFirst."), &["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"]),
            f("hostNetwork", "boolean", "Use the node's network namespace instead of the pod's own. Defaults to false."),
            obj("imagePullSecrets", "[]LocalObjectReference", "", "Secrets in the pod's namespace holding registry credentials for pulling images."),
            obj("initContainers", "[]Container", "Container", "Containers run to completion, in order, before the regular containers start."),
            f("nodeName", "string", "The node the pod is bound to. Normally set by the scheduler through the binding subresource."),
            obj("nodeSelector", "map[string]string", "", "Labels a node must carry for the pod to be scheduled onto it."),
            one_of(f("preemptionPolicy", "string", "Whether the pod may preempt lower-priority pods. Set by the Priority admission plugin from the priority class."), &["Never", "PreemptLowerPriority"]),
            f("priority", "integer", "The pod's priority, resolved from priorityClassName by the Priority admission plugin."),
            f("priorityClassName", "string", "The name of a PriorityClass giving the pod's priority."),
            one_of(f("restartPolicy", "string", "When the kubelet restarts containers that exit. Defaults to Always."), &["Always", "Never", "OnFailure"]),
            f("schedulerName", "string", "The scheduler that places the pod. Defaults to \"default-scheduler\"."),
            obj("securityContext", "PodSecurityContext", "", "Pod-level security attributes such as the user and group the containers run as."),
            f("serviceAccountName", "string", "The service account the pod runs as."),
            f("terminationGracePeriodSeconds", "integer", "Seconds between the termination signal and the kill signal. Defaults to 30."),
            obj("tolerations", "[]Toleration", "", "Taints the pod tolerates."),
            obj("volumes", "[]Volume", "", "Volumes the containers of the pod can mount."),
        ],
    },
    Schema {
        name: "Container",
        doc: "One application container of a pod.",
        fields: &[
            obj("args", "[]string", "", "Arguments to the entrypoint; the image's CMD is used when empty."),
            obj("command", "[]string", "", "The entrypoint, not run in a shell; the image's ENTRYPOINT is used when empty."),
            obj("env", "[]EnvVar", "", "Environment variables set in the container."),
            f("image", "string", "The container image to run."),
            one_of(f("imagePullPolicy", "string", "When to pull the image: Always for the latest tag or no tag, IfNotPresent otherwise, by default."), &["Always", "IfNotPresent", "Never"]),
            obj("livenessProbe", "Probe", "", "A periodic check; the container is restarted when it fails."),
            req(f("name", "string", "The container's name, a DNS label unique within the pod.")),
            obj("ports", "[]ContainerPort", "", "Ports the container exposes; informational, any port the process listens on is reachable."),
            obj("readinessProbe", "Probe", "", "A periodic check; the pod is removed from service endpoints while it fails."),
            obj("resources", "ResourceRequirements", "", "Compute resources the container requests and is limited to."),
            obj("securityContext", "SecurityContext", "", "Container-level security options."),
            obj("volumeMounts", "[]VolumeMount", "", "Volumes of the pod mounted into the container's filesystem."),
            f("workingDir", "string", "The working directory; the image's default when empty."),
        ],
    },
    Schema {
        name: "PodStatus",
        doc: "The observed state of a pod.",
        fields: &[
            obj("conditions", "[]PodCondition", "", "The pod's conditions: PodScheduled, Initialized, ContainersReady, Ready."),
            obj("containerStatuses", "[]ContainerStatus", "", "One entry per container with its state, readiness and restart count."),
            f("hostIP", "string", "The IP address of the node the pod runs on."),
            f("message", "string", "A human-readable explanation of the pod's state."),
            one_of(f("phase", "string", "A simple summary of where the pod is in its lifecycle."), &["Failed", "Pending", "Running", "Succeeded", "Unknown"]),
            f("podIP", "string", "The IP address allocated to the pod."),
            f("qosClass", "string", "The quality-of-service class derived from the containers' requests and limits."),
            f("reason", "string", "A brief CamelCase reason for the pod's state, e.g. Evicted."),
            f("startTime", "string", "When the kubelet acknowledged the pod."),
        ],
    },
    Schema {
        name: "Deployment",
        doc: "A Deployment declares the desired state of a set of identical pods and rolls changes out through ReplicaSets.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "DeploymentSpec", "DeploymentSpec", "The desired state: how many pods, which pod template and how to roll out changes."),
            obj("status", "DeploymentStatus", "DeploymentStatus", "The most recently observed state, written by the deployment controller. Read-only."),
        ],
    },
    Schema {
        name: "DeploymentSpec",
        doc: "The desired state of a Deployment.",
        fields: &[
            f("minReadySeconds", "integer", "Seconds a new pod must be ready before it counts as available. Defaults to 0."),
            f("paused", "boolean", "Whether rollouts are paused."),
            f("progressDeadlineSeconds", "integer", "Seconds without progress after which the rollout is reported as failed. Defaults to 600."),
            f("replicas", "integer", "The number of desired pods. Defaults to 1."),
            f("revisionHistoryLimit", "integer", "How many old ReplicaSets are kept for rollbacks. Defaults to 10."),
            req(obj("selector", "LabelSelector", "LabelSelector", "Which pods belong to the Deployment; must match the template's labels and cannot change.")),
            obj("strategy", "DeploymentStrategy", "DeploymentStrategy", "How old pods are replaced by new ones."),
            req(obj("template", "PodTemplateSpec", "PodTemplateSpec", "The pod the Deployment creates copies of.")),
        ],
    },
    Schema {
        name: "DeploymentStrategy",
        doc: "How a Deployment replaces its pods.",
        fields: &[
            obj("rollingUpdate", "RollingUpdateDeployment", "", "Surge and unavailability limits of a rolling update."),
            one_of(f("type", "string", "Recreate or RollingUpdate. Defaults to RollingUpdate."), &["Recreate", "RollingUpdate"]),
        ],
    },
    Schema {
        name: "DeploymentStatus",
        doc: "The observed state of a Deployment.",
        fields: &[
            f("availableReplicas", "integer", "Pods ready for at least minReadySeconds."),
            f("collisionCount", "integer", "Counts template hash collisions, used to make ReplicaSet names unique."),
            obj("conditions", "[]DeploymentCondition", "", "The Deployment's conditions: Available, Progressing, ReplicaFailure."),
            f("observedGeneration", "integer", "The generation the controller last acted on."),
            f("readyReplicas", "integer", "Pods whose Ready condition is true."),
            f("replicas", "integer", "Pods targeted by the Deployment, old and new."),
            f("unavailableReplicas", "integer", "Pods still needed for the Deployment to be fully available."),
            f("updatedReplicas", "integer", "Pods running the current template."),
        ],
    },
    Schema {
        name: "PodTemplateSpec",
        doc: "The pod a controller creates copies of.",
        fields: &[
            METADATA,
            obj("spec", "PodSpec", "PodSpec", "The desired behaviour of the pods created from this template."),
        ],
    },
    Schema {
        name: "LabelSelector",
        doc: "A label query. matchLabels and matchExpressions are ANDed; an empty selector matches everything.",
        fields: &[
            obj("matchExpressions", "[]LabelSelectorRequirement", "", "Requirements with the operators In, NotIn, Exists and DoesNotExist."),
            obj("matchLabels", "map[string]string", "", "Labels that must all be present with these values."),
        ],
    },
    Schema {
        name: "Service",
        doc: "A Service gives a set of pods, picked by a label selector, one stable virtual IP and DNS name, load-balanced by kube-proxy.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "ServiceSpec", "ServiceSpec", "The desired behaviour of the service: selector, ports and type."),
            obj("status", "ServiceStatus", "ServiceStatus", "The most recently observed state, such as load balancer ingress. Read-only."),
        ],
    },
    Schema {
        name: "ServiceSpec",
        doc: "The desired behaviour of a Service.",
        fields: &[
            f("clusterIP", "string", "The virtual IP, allocated from the service CIDR when empty; \"None\" makes a headless service. Cannot change."),
            obj("clusterIPs", "[]string", "", "The virtual IPs, one per IP family; the first equals clusterIP."),
            obj("externalIPs", "[]string", "", "Extra IPs, not managed by Kubernetes, on which nodes accept traffic for the service."),
            f("externalName", "string", "The DNS name an ExternalName service is a CNAME for."),
            one_of(f("externalTrafficPolicy", "string", "Whether external traffic may be routed to endpoints on other nodes."), &["Cluster", "Local"]),
            obj("ipFamilies", "[]string", "", "The IP families (IPv4, IPv6) of the service."),
            one_of(f("ipFamilyPolicy", "string", "Single-stack or dual-stack. Defaults to SingleStack."), &["PreferDualStack", "RequireDualStack", "SingleStack"]),
            obj("ports", "[]ServicePort", "ServicePort", "The ports the service exposes."),
            obj("selector", "map[string]string", "", "Pods with these labels receive the service's traffic; no endpoints are managed when empty."),
            one_of(f("sessionAffinity", "string", "ClientIP keeps a client on one endpoint. Defaults to None."), &["ClientIP", "None"]),
            one_of(f("type", "string", "How the service is exposed. Defaults to ClusterIP."), &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]),
        ],
    },
    Schema {
        name: "ServicePort",
        doc: "One port of a Service.",
        fields: &[
            f("appProtocol", "string", "The application protocol, as a hint for implementations."),
            f("name", "string", "The port's name; required when the service has more than one port."),
            f("nodePort", "integer", "The port opened on every node for NodePort and LoadBalancer services; allocated when empty."),
            req(f("port", "integer", "The port the service listens on.")),
            one_of(f("protocol", "string", "TCP, UDP or SCTP. Defaults to TCP."), &["SCTP", "TCP", "UDP"]),
            f("targetPort", "IntOrString", "The port (number or container port name) on the pods. Defaults to port."),
        ],
    },
    Schema {
        name: "ServiceStatus",
        doc: "The observed state of a Service.",
        fields: &[
            obj("conditions", "[]Condition", "", "The service's conditions."),
            obj("loadBalancer", "LoadBalancerStatus", "", "The ingress points of a LoadBalancer service."),
        ],
    },
    Schema {
        name: "ConfigMap",
        doc: "A ConfigMap holds non-confidential configuration as key/value pairs for pods to consume.",
        fields: &[
            API_VERSION,
            obj("binaryData", "map[string]string", "", "Binary values, base64-encoded; keys may not also appear in data."),
            obj("data", "map[string]string", "", "UTF-8 values by key."),
            f("immutable", "boolean", "When true, data and binaryData can no longer be changed."),
            KIND,
            METADATA,
        ],
    },
    Schema {
        name: "Secret",
        doc: "A Secret holds a small amount of sensitive data, such as a password, token or key.",
        fields: &[
            API_VERSION,
            obj("data", "map[string]string", "", "Values by key, base64-encoded."),
            f("immutable", "boolean", "When true, the data can no longer be changed."),
            KIND,
            METADATA,
            obj("stringData", "map[string]string", "", "Write-only plain-text values, merged into data when written."),
            f("type", "string", "Used to validate and handle the secret's data. Defaults to Opaque."),
        ],
    },
    Schema {
        name: "Namespace",
        doc: "A Namespace is a scope for names; most namespaced objects, quotas and policies apply within one.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "NamespaceSpec", "", "The namespace's finalizers."),
            obj("status", "NamespaceStatus", "", "The namespace's phase: Active or Terminating."),
        ],
    },
    Schema {
        name: "Node",
        doc: "A Node is a machine that runs pods, registered and kept up to date by its kubelet.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "NodeSpec", "", "How the node is configured: pod CIDR, taints, whether it is schedulable."),
            obj("status", "NodeStatus", "", "The node's conditions, capacity, addresses and versions, reported by the kubelet."),
        ],
    },
    Schema {
        name: "ServiceAccount",
        doc: "A ServiceAccount is an identity for processes running in pods.",
        fields: &[
            API_VERSION,
            f("automountServiceAccountToken", "boolean", "Whether pods using this account get a token mounted by default."),
            obj("imagePullSecrets", "[]LocalObjectReference", "", "Registry credentials added to pods that use this account."),
            KIND,
            METADATA,
            obj("secrets", "[]ObjectReference", "", "Secrets pods using this account may use."),
        ],
    },
    Schema {
        name: "ReplicaSet",
        doc: "A ReplicaSet keeps a given number of pods matching its selector running.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "ReplicaSetSpec", "", "The desired number of pods, their selector and template."),
            obj("status", "ReplicaSetStatus", "", "The observed number of pods, written by the replicaset controller."),
        ],
    },
    Schema {
        name: "StatefulSet",
        doc: "A StatefulSet runs pods with stable names and storage, created and updated in order.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "StatefulSetSpec", "", "The desired pods, their ordering and volume claim templates."),
            obj("status", "StatefulSetStatus", "", "The observed state, written by the statefulset controller."),
        ],
    },
    Schema {
        name: "DaemonSet",
        doc: "A DaemonSet runs one copy of a pod on every node that matches it.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "DaemonSetSpec", "", "The pod template, selector and update strategy."),
            obj("status", "DaemonSetStatus", "", "The observed state, written by the daemonset controller."),
        ],
    },
    Schema {
        name: "Job",
        doc: "A Job runs pods until a given number of them complete successfully.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "JobSpec", "", "The pod template, completions, parallelism and failure handling."),
            obj("status", "JobStatus", "", "The observed state, written by the job controller."),
        ],
    },
    Schema {
        name: "CronJob",
        doc: "A CronJob creates Jobs on a repeating schedule.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            obj("spec", "CronJobSpec", "", "The schedule and the job template."),
            obj("status", "CronJobStatus", "", "The active jobs and the last schedule times."),
        ],
    },
    Schema {
        name: "Role",
        doc: "A Role is a namespaced set of rules granting access to resources.",
        fields: &[API_VERSION, KIND, METADATA, obj("rules", "[]PolicyRule", "", "The rules; access is only ever granted, never denied.")],
    },
    Schema {
        name: "ClusterRole",
        doc: "A ClusterRole is a cluster-wide set of rules, usable by RoleBindings and ClusterRoleBindings.",
        fields: &[
            obj("aggregationRule", "AggregationRule", "", "Selects ClusterRoles whose rules are aggregated into this one."),
            API_VERSION,
            KIND,
            METADATA,
            obj("rules", "[]PolicyRule", "", "The rules; access is only ever granted, never denied."),
        ],
    },
    Schema {
        name: "RoleBinding",
        doc: "A RoleBinding grants the rules of a Role or ClusterRole to subjects within one namespace.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            req(obj("roleRef", "RoleRef", "", "The Role or ClusterRole granted; cannot be changed.")),
            obj("subjects", "[]Subject", "", "The users, groups and service accounts granted the role."),
        ],
    },
    Schema {
        name: "ClusterRoleBinding",
        doc: "A ClusterRoleBinding grants the rules of a ClusterRole to subjects cluster-wide.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            req(obj("roleRef", "RoleRef", "", "The ClusterRole granted; cannot be changed.")),
            obj("subjects", "[]Subject", "", "The users, groups and service accounts granted the role."),
        ],
    },
];

fn schema(name: &str) -> Option<&'static Schema> {
    SCHEMAS.iter().find(|s| s.name == name)
}

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
    let mut path = target.split('.').map(str::to_string).collect::<Vec<_>>();
    let resource_word = path.remove(0);
    let info = match lookup(&resource_word) {
        Some(i) => {
            // `deployments.apps.spec`: the group-qualified resource name takes the group's words.
            let qualified = format!("{}.{}.", i.resource, i.group);
            if !i.group.is_empty() && format!("{target}.").starts_with(&qualified) {
                path.drain(..i.group.split('.').count());
            }
            i
        }
        None => {
            // `deployments.apps.spec`: a group-qualified resource followed by fields.
            let found = (1..=path.len()).rev().find_map(|n| {
                let name = std::iter::once(resource_word.clone()).chain(path[..n].iter().cloned()).collect::<Vec<_>>();
                lookup(&name.join(".")).filter(|i| i.group == name[1..].join(".")).map(|i| (i, n))
            });
            match found {
                Some((i, n)) => {
                    path.drain(..n);
                    i
                }
                None => return Err(Failure(format!("the server doesn't have a resource type {resource_word:?}"))),
            }
        }
    };
    if let Some(version) = ctx.args.get(&["api-version"]) {
        if version != info.api_version() {
            return Err(common::error(format!(
                "couldn't find resource for \"{}/{version}, Resource={}\"",
                info.group, info.resource
            )));
        }
    }
    let kind = info.kind.name();
    let Some(root) = schema(kind) else {
        return Err(common::error(format!(
            "kubeglass has no explanation for {kind} yet (its own schema table covers the common kinds)"
        )));
    };
    let mut out = String::new();
    if !info.group.is_empty() {
        out.push_str(&format!("GROUP:      {}\n", info.group));
    }
    out.push_str(&format!("KIND:       {kind}\n"));
    out.push_str(&format!("VERSION:    {}\n\n", info.version));
    let recursive = ctx.args.has(&["recursive"]);
    let mut current: Option<&Schema> = Some(root);
    let mut doc = format!("{}\n", root.doc);
    for (i, step) in path.iter().enumerate() {
        let Some(field) = current.and_then(|s| s.fields.iter().find(|f| f.name == step)) else {
            return Err(common::error(format!("field {step:?} does not exist")));
        };
        current = field.schema.and_then(schema);
        doc = format!("{}\n", field.doc);
        if let Some(s) = current {
            doc.push_str(s.doc);
            doc.push('\n');
        }
        if i + 1 == path.len() {
            out.push_str(&format!("FIELD: {} <{}>\n", field.name, field.ty));
            if !field.enumeration.is_empty() {
                out.push_str("ENUM:");
                for e in field.enumeration {
                    out.push_str("\n    ");
                    out.push_str(e);
                }
            }
            out.push_str("\n\n");
        }
    }
    out.push_str("DESCRIPTION:\n");
    out.push_str(&indent(&wrap(&doc, 76), 4));
    out.push('\n');
    if let Some(s) = current.filter(|s| !s.fields.is_empty()) {
        out.push_str("FIELDS:\n");
        field_list(&mut out, s, 1, recursive, &mut Vec::new());
    }
    out.push('\n');
    ctx.api.print(&out);
    Ok(())
}

/// The FIELDS list at `level` (two spaces of indentation per level): with descriptions, or with `--recursive`
/// one line per field and the fields of fields below it.
fn field_list(out: &mut String, s: &Schema, level: usize, recursive: bool, seen: &mut Vec<&'static str>) {
    if seen.contains(&s.name) {
        return;
    }
    seen.push(s.name);
    let pad = level * 2;
    let mut fields: Vec<&Field> = s.fields.iter().collect();
    fields.sort_by_key(|f| f.name);
    for field in fields {
        out.push_str(&" ".repeat(pad));
        out.push_str(field.name);
        out.push_str(&format!("\t<{}>", field.ty));
        if field.required {
            out.push_str(" -required-");
        }
        if !field.enumeration.is_empty() {
            out.push('\n');
            out.push_str(&" ".repeat(pad));
            out.push_str("enum: ");
            for (i, e) in field.enumeration.iter().enumerate() {
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
            if let Some(sub) = field.schema.and_then(schema) {
                field_list(out, sub, level + 1, recursive, seen);
            }
        } else {
            out.push_str(&indent(&wrap(field.doc, 78 - pad), pad + 2));
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

/// sprig's `wrap` (goutils `Wrap`): break at the last space that keeps a line within `width`; words longer
/// than the width stay whole. Newlines in the text count as ordinary characters.
fn wrap(text: &str, width: usize) -> String {
    let s = text.as_bytes();
    let width = width.max(1);
    let mut out = String::new();
    let mut offset = 0;
    while s.len() - offset > width {
        if s[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(s.len());
        match text[offset..end].rfind(' ') {
            Some(space) => {
                out.push_str(&text[offset..offset + space]);
                out.push('\n');
                offset += space + 1;
            }
            None => match text[width + offset..].find(' ') {
                None => {
                    out.push_str(&text[offset..]);
                    offset = s.len();
                }
                Some(i) => {
                    let at = width + offset + i;
                    out.push_str(&text[offset..at]);
                    out.push('\n');
                    offset = at + 1;
                }
            },
        }
    }
    out.push_str(&text[offset..]);
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
    }

    #[test]
    fn every_field_schema_named_in_the_table_exists_or_is_left_undescribed_on_purpose() {
        for s in SCHEMAS {
            for field in s.fields {
                if let Some(name) = field.schema.filter(|n| !n.is_empty()) {
                    assert!(schema(name).is_some(), "{}.{} points at missing {name}", s.name, field.name);
                }
            }
        }
    }
}
