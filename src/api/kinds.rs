//! The built-in kinds kubeglass serves: one table that ties each Kind to its Rust type (from `k8s-openapi`),
//! REST resource, API group and version, scope, short names and etcd key prefix, as the real apiserver's
//! discovery and storage layout have them (`test/integration/etcd/data.go` for the keys).

use k8s_openapi::api::{
    admissionregistration::v1 as admissionregistration, apps::v1 as apps, authentication::v1 as authentication,
    authorization::v1 as authorization, autoscaling::v2 as autoscaling, batch::v1 as batch,
    certificates::v1 as certificates, coordination::v1 as coordination, core::v1 as core, discovery::v1 as discovery,
    flowcontrol::v1 as flowcontrol, networking::v1 as networking, node::v1 as node, policy::v1 as policy,
    rbac::v1 as rbac, resource::v1 as resource, scheduling::v1 as scheduling, storage::v1 as storage,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1 as apiregistration;

use super::custom::{CustomDef, CustomObject};

/// Static facts about one REST resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceInfo {
    pub kind: Kind,
    /// `pods`, `deployments`, …: the plural REST resource name.
    pub resource: &'static str,
    pub singular: &'static str,
    pub short_names: &'static [&'static str],
    /// API group; `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub namespaced: bool,
    /// etcd key prefix under `/registry/` (`minions` for nodes, `services/specs` for services, …).
    pub etcd: &'static str,
    /// Whether the apiserver persists it (Binding is create-only and never stored).
    pub stored: bool,
    /// Member of the `all` category (`kubectl get all`).
    pub in_all: bool,
}

impl ResourceInfo {
    /// `deployments.apps`, or `pods` for the core group: how API errors name a resource.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.to_string()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// `apps/v1` or `v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `Deployment.apps` or `Pod`: how validation errors name a kind.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.name().to_string()
        } else {
            format!("{}.{}", self.kind.name(), self.group)
        }
    }

    /// The etcd key of an object: `/registry/<prefix>/<ns>/<name>` or `/registry/<prefix>/<name>`.
    pub fn key(&self, namespace: Option<&str>, name: &str) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("/registry/{}/{}/{}", self.etcd, ns, name),
            _ => format!("/registry/{}/{}", self.etcd, name),
        }
    }

    /// The key prefix holding every object of this resource (in one namespace, or all).
    pub fn prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("/registry/{}/{}/", self.etcd, ns),
            _ => format!("/registry/{}/", self.etcd),
        }
    }
}

macro_rules! kinds {
    ($( $variant:ident($ty:ty) = $resource:literal, $singular:literal, [$($short:literal),*], $group:literal, $version:literal,
        namespaced: $ns:literal, etcd: $etcd:literal, stored: $stored:literal, all: $all:literal; )*) => {
        /// A Kubernetes kind that kubeglass knows: a built-in one, or one a CustomResourceDefinition added.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind { $( $variant, )* Custom(&'static CustomDef) }

        /// The built-in kinds' rows in [`RESOURCES`], by variant.
        #[allow(clippy::enum_variant_names)]
        enum Row { $( $variant, )* }

        /// An API object of any built-in kind: the real `k8s-openapi` type inside.
        #[derive(Debug, Clone, PartialEq)]
        ///
        /// Each variant is boxed: the enum itself is then a pointer wide, so an Event or a Lease behind an
        /// `Arc` costs its own size rather than that of the largest kind (a PersistentVolume, 3.4 KB).
        pub enum Object { $( $variant(Box<$ty>), )* Custom(Box<CustomObject>) }

        /// Every resource, in discovery order.
        pub static RESOURCES: &[ResourceInfo] = &[ $( ResourceInfo {
            kind: Kind::$variant, resource: $resource, singular: $singular, short_names: &[$($short),*],
            group: $group, version: $version, namespaced: $ns, etcd: $etcd, stored: $stored, in_all: $all,
        }, )* ];

        impl Kind {
            pub fn name(self) -> &'static str {
                match self { $( Kind::$variant => kind_string(stringify!($variant)), )* Kind::Custom(def) => def.kind }
            }

            /// The kind's row: its index in [`RESOURCES`], or its definition's home row.
            pub fn info(self) -> &'static ResourceInfo {
                match self { $( Kind::$variant => &RESOURCES[Row::$variant as usize], )* Kind::Custom(def) => def.home() }
            }
        }

        impl Object {
            pub fn kind(&self) -> Kind {
                match self { $( Object::$variant(_) => Kind::$variant, )* Object::Custom(o) => Kind::Custom(o.def) }
            }

            pub fn meta(&self) -> &ObjectMeta {
                match self { $( Object::$variant(o) => &o.metadata, )* Object::Custom(o) => &o.metadata }
            }

            pub fn meta_mut(&mut self) -> &mut ObjectMeta {
                match self { $( Object::$variant(o) => &mut o.metadata, )* Object::Custom(o) => &mut o.metadata }
            }

            /// The object as JSON, with `apiVersion` and `kind` (keys sorted, as `kubectl get -o json` prints them).
            pub fn to_json(&self) -> serde_json::Value {
                let value = match self { $( Object::$variant(o) => serde_json::to_value(o), )* Object::Custom(o) => Ok(o.to_value()) };
                value.unwrap_or(serde_json::Value::Null)
            }

            /// The object as compact JSON bytes (what etcd's history keeps for old revisions).
            pub fn to_json_bytes(&self) -> Vec<u8> {
                let bytes = match self { $( Object::$variant(o) => serde_json::to_vec(o), )* Object::Custom(o) => serde_json::to_vec(&o.to_value()) };
                bytes.unwrap_or_default()
            }

            /// Decodes JSON bytes already known to be of `kind`.
            pub fn from_json_bytes(kind: Kind, bytes: &[u8]) -> Result<Object, serde_json::Error> {
                Ok(match kind {
                    $( Kind::$variant => Object::$variant(Box::new(serde_json::from_slice(bytes)?)), )*
                    Kind::Custom(def) => Object::Custom(Box::new(CustomObject::from_value(def, serde_json::from_slice(bytes)?)?)),
                })
            }

            /// Decodes an object of `kind` from any deserializer (`kubectl explain`'s schema test drives the
            /// API types with a probe to read their structure).
            #[cfg(test)]
            pub fn deserialize_as<'de, D: serde::Deserializer<'de>>(kind: Kind, d: D) -> Result<Object, D::Error> {
                use serde::Deserialize;
                Ok(match kind {
                    $( Kind::$variant => Object::$variant(Box::new(<$ty>::deserialize(d)?)), )*
                    Kind::Custom(def) => Object::Custom(Box::new(
                        CustomObject::from_value(def, serde_json::Value::deserialize(d)?).map_err(serde::de::Error::custom)?,
                    )),
                })
            }

            /// Decodes JSON already known to be of `kind`.
            pub fn from_json_as(kind: Kind, value: serde_json::Value) -> Result<Object, serde_json::Error> {
                Ok(match kind {
                    $( Kind::$variant => Object::$variant(Box::new(serde_json::from_value(value)?)), )*
                    Kind::Custom(def) => Object::Custom(Box::new(CustomObject::from_value(def, value)?)),
                })
            }
        }
    };
}

kinds! {
    Binding(core::Binding) = "bindings", "binding", [], "", "v1", namespaced: true, etcd: "bindings", stored: false, all: false;
    Eviction(policy::Eviction) = "evictions", "eviction", [], "policy", "v1", namespaced: true, etcd: "evictions", stored: false, all: false;
    ConfigMap(core::ConfigMap) = "configmaps", "configmap", ["cm"], "", "v1", namespaced: true, etcd: "configmaps", stored: true, all: false;
    Endpoints(core::Endpoints) = "endpoints", "endpoints", ["ep"], "", "v1", namespaced: true, etcd: "services/endpoints", stored: true, all: false;
    ComponentStatus(core::ComponentStatus) = "componentstatuses", "componentstatus", ["cs"], "", "v1", namespaced: false, etcd: "", stored: false, all: false;
    Event(core::Event) = "events", "event", ["ev"], "", "v1", namespaced: true, etcd: "events", stored: true, all: false;
    LimitRange(core::LimitRange) = "limitranges", "limitrange", ["limits"], "", "v1", namespaced: true, etcd: "limitranges", stored: true, all: false;
    Namespace(core::Namespace) = "namespaces", "namespace", ["ns"], "", "v1", namespaced: false, etcd: "namespaces", stored: true, all: false;
    Node(core::Node) = "nodes", "node", ["no"], "", "v1", namespaced: false, etcd: "minions", stored: true, all: false;
    PersistentVolumeClaim(core::PersistentVolumeClaim) = "persistentvolumeclaims", "persistentvolumeclaim", ["pvc"], "", "v1", namespaced: true, etcd: "persistentvolumeclaims", stored: true, all: false;
    PersistentVolume(core::PersistentVolume) = "persistentvolumes", "persistentvolume", ["pv"], "", "v1", namespaced: false, etcd: "persistentvolumes", stored: true, all: false;
    Pod(core::Pod) = "pods", "pod", ["po"], "", "v1", namespaced: true, etcd: "pods", stored: true, all: true;
    PodTemplate(core::PodTemplate) = "podtemplates", "podtemplate", [], "", "v1", namespaced: true, etcd: "podtemplates", stored: true, all: false;
    ReplicationController(core::ReplicationController) = "replicationcontrollers", "replicationcontroller", ["rc"], "", "v1", namespaced: true, etcd: "controllers", stored: true, all: true;
    ResourceQuota(core::ResourceQuota) = "resourcequotas", "resourcequota", ["quota"], "", "v1", namespaced: true, etcd: "resourcequotas", stored: true, all: false;
    Secret(core::Secret) = "secrets", "secret", [], "", "v1", namespaced: true, etcd: "secrets", stored: true, all: false;
    ServiceAccount(core::ServiceAccount) = "serviceaccounts", "serviceaccount", ["sa"], "", "v1", namespaced: true, etcd: "serviceaccounts", stored: true, all: false;
    Service(core::Service) = "services", "service", ["svc"], "", "v1", namespaced: true, etcd: "services/specs", stored: true, all: true;
    MutatingWebhookConfiguration(admissionregistration::MutatingWebhookConfiguration) = "mutatingwebhookconfigurations", "mutatingwebhookconfiguration", [], "admissionregistration.k8s.io", "v1", namespaced: false, etcd: "mutatingwebhookconfigurations", stored: true, all: false;
    ValidatingAdmissionPolicy(admissionregistration::ValidatingAdmissionPolicy) = "validatingadmissionpolicies", "validatingadmissionpolicy", [], "admissionregistration.k8s.io", "v1", namespaced: false, etcd: "validatingadmissionpolicies", stored: true, all: false;
    ValidatingAdmissionPolicyBinding(admissionregistration::ValidatingAdmissionPolicyBinding) = "validatingadmissionpolicybindings", "validatingadmissionpolicybinding", [], "admissionregistration.k8s.io", "v1", namespaced: false, etcd: "validatingadmissionpolicybindings", stored: true, all: false;
    ValidatingWebhookConfiguration(admissionregistration::ValidatingWebhookConfiguration) = "validatingwebhookconfigurations", "validatingwebhookconfiguration", [], "admissionregistration.k8s.io", "v1", namespaced: false, etcd: "validatingwebhookconfigurations", stored: true, all: false;
    CustomResourceDefinition(apiextensions::CustomResourceDefinition) = "customresourcedefinitions", "customresourcedefinition", ["crd", "crds"], "apiextensions.k8s.io", "v1", namespaced: false, etcd: "apiextensions.k8s.io/customresourcedefinitions", stored: true, all: false;
    APIService(apiregistration::APIService) = "apiservices", "apiservice", [], "apiregistration.k8s.io", "v1", namespaced: false, etcd: "apiregistration.k8s.io/apiservices", stored: true, all: false;
    ControllerRevision(apps::ControllerRevision) = "controllerrevisions", "controllerrevision", [], "apps", "v1", namespaced: true, etcd: "controllerrevisions", stored: true, all: false;
    DaemonSet(apps::DaemonSet) = "daemonsets", "daemonset", ["ds"], "apps", "v1", namespaced: true, etcd: "daemonsets", stored: true, all: true;
    Deployment(apps::Deployment) = "deployments", "deployment", ["deploy"], "apps", "v1", namespaced: true, etcd: "deployments", stored: true, all: true;
    ReplicaSet(apps::ReplicaSet) = "replicasets", "replicaset", ["rs"], "apps", "v1", namespaced: true, etcd: "replicasets", stored: true, all: true;
    StatefulSet(apps::StatefulSet) = "statefulsets", "statefulset", ["sts"], "apps", "v1", namespaced: true, etcd: "statefulsets", stored: true, all: true;
    HorizontalPodAutoscaler(autoscaling::HorizontalPodAutoscaler) = "horizontalpodautoscalers", "horizontalpodautoscaler", ["hpa"], "autoscaling", "v2", namespaced: true, etcd: "horizontalpodautoscalers", stored: true, all: true;
    CronJob(batch::CronJob) = "cronjobs", "cronjob", ["cj"], "batch", "v1", namespaced: true, etcd: "cronjobs", stored: true, all: true;
    Job(batch::Job) = "jobs", "job", [], "batch", "v1", namespaced: true, etcd: "jobs", stored: true, all: true;
    CertificateSigningRequest(certificates::CertificateSigningRequest) = "certificatesigningrequests", "certificatesigningrequest", ["csr"], "certificates.k8s.io", "v1", namespaced: false, etcd: "certificatesigningrequests", stored: true, all: false;
    Lease(coordination::Lease) = "leases", "lease", [], "coordination.k8s.io", "v1", namespaced: true, etcd: "leases", stored: true, all: false;
    EventV1(k8s_openapi::api::events::v1::Event) = "events", "event", ["ev"], "events.k8s.io", "v1", namespaced: true, etcd: "events", stored: true, all: false;
    EndpointSlice(discovery::EndpointSlice) = "endpointslices", "endpointslice", [], "discovery.k8s.io", "v1", namespaced: true, etcd: "endpointslices", stored: true, all: false;
    FlowSchema(flowcontrol::FlowSchema) = "flowschemas", "flowschema", [], "flowcontrol.apiserver.k8s.io", "v1", namespaced: false, etcd: "flowschemas", stored: true, all: false;
    PriorityLevelConfiguration(flowcontrol::PriorityLevelConfiguration) = "prioritylevelconfigurations", "prioritylevelconfiguration", [], "flowcontrol.apiserver.k8s.io", "v1", namespaced: false, etcd: "prioritylevelconfigurations", stored: true, all: false;
    IngressClass(networking::IngressClass) = "ingressclasses", "ingressclass", [], "networking.k8s.io", "v1", namespaced: false, etcd: "ingressclasses", stored: true, all: false;
    Ingress(networking::Ingress) = "ingresses", "ingress", ["ing"], "networking.k8s.io", "v1", namespaced: true, etcd: "ingress", stored: true, all: false;
    IPAddress(networking::IPAddress) = "ipaddresses", "ipaddress", ["ip"], "networking.k8s.io", "v1", namespaced: false, etcd: "ipaddresses", stored: true, all: false;
    NetworkPolicy(networking::NetworkPolicy) = "networkpolicies", "networkpolicy", ["netpol"], "networking.k8s.io", "v1", namespaced: true, etcd: "networkpolicies", stored: true, all: false;
    ServiceCIDR(networking::ServiceCIDR) = "servicecidrs", "servicecidr", [], "networking.k8s.io", "v1", namespaced: false, etcd: "servicecidrs", stored: true, all: false;
    RuntimeClass(node::RuntimeClass) = "runtimeclasses", "runtimeclass", [], "node.k8s.io", "v1", namespaced: false, etcd: "runtimeclasses", stored: true, all: false;
    PodDisruptionBudget(policy::PodDisruptionBudget) = "poddisruptionbudgets", "poddisruptionbudget", ["pdb"], "policy", "v1", namespaced: true, etcd: "poddisruptionbudgets", stored: true, all: false;
    ClusterRoleBinding(rbac::ClusterRoleBinding) = "clusterrolebindings", "clusterrolebinding", [], "rbac.authorization.k8s.io", "v1", namespaced: false, etcd: "clusterrolebindings", stored: true, all: false;
    ClusterRole(rbac::ClusterRole) = "clusterroles", "clusterrole", [], "rbac.authorization.k8s.io", "v1", namespaced: false, etcd: "clusterroles", stored: true, all: false;
    RoleBinding(rbac::RoleBinding) = "rolebindings", "rolebinding", [], "rbac.authorization.k8s.io", "v1", namespaced: true, etcd: "rolebindings", stored: true, all: false;
    Role(rbac::Role) = "roles", "role", [], "rbac.authorization.k8s.io", "v1", namespaced: true, etcd: "roles", stored: true, all: false;
    DeviceClass(resource::DeviceClass) = "deviceclasses", "deviceclass", [], "resource.k8s.io", "v1", namespaced: false, etcd: "deviceclasses", stored: true, all: false;
    ResourceClaim(resource::ResourceClaim) = "resourceclaims", "resourceclaim", [], "resource.k8s.io", "v1", namespaced: true, etcd: "resourceclaims", stored: true, all: false;
    ResourceClaimTemplate(resource::ResourceClaimTemplate) = "resourceclaimtemplates", "resourceclaimtemplate", [], "resource.k8s.io", "v1", namespaced: true, etcd: "resourceclaimtemplates", stored: true, all: false;
    ResourceSlice(resource::ResourceSlice) = "resourceslices", "resourceslice", [], "resource.k8s.io", "v1", namespaced: false, etcd: "resourceslices", stored: true, all: false;
    PriorityClass(scheduling::PriorityClass) = "priorityclasses", "priorityclass", ["pc"], "scheduling.k8s.io", "v1", namespaced: false, etcd: "priorityclasses", stored: true, all: false;
    CSIDriver(storage::CSIDriver) = "csidrivers", "csidriver", [], "storage.k8s.io", "v1", namespaced: false, etcd: "csidrivers", stored: true, all: false;
    CSINode(storage::CSINode) = "csinodes", "csinode", [], "storage.k8s.io", "v1", namespaced: false, etcd: "csinodes", stored: true, all: false;
    CSIStorageCapacity(storage::CSIStorageCapacity) = "csistoragecapacities", "csistoragecapacity", [], "storage.k8s.io", "v1", namespaced: true, etcd: "csistoragecapacities", stored: true, all: false;
    StorageClass(storage::StorageClass) = "storageclasses", "storageclass", ["sc"], "storage.k8s.io", "v1", namespaced: false, etcd: "storageclasses", stored: true, all: false;
    VolumeAttachment(storage::VolumeAttachment) = "volumeattachments", "volumeattachment", [], "storage.k8s.io", "v1", namespaced: false, etcd: "volumeattachments", stored: true, all: false;
    VolumeAttributesClass(storage::VolumeAttributesClass) = "volumeattributesclasses", "volumeattributesclass", ["vac"], "storage.k8s.io", "v1", namespaced: false, etcd: "volumeattributesclasses", stored: true, all: false;
    SelfSubjectReview(authentication::SelfSubjectReview) = "selfsubjectreviews", "selfsubjectreview", [], "authentication.k8s.io", "v1", namespaced: false, etcd: "", stored: false, all: false;
    TokenReview(authentication::TokenReview) = "tokenreviews", "tokenreview", [], "authentication.k8s.io", "v1", namespaced: false, etcd: "", stored: false, all: false;
    TokenRequest(authentication::TokenRequest) = "tokenrequests", "tokenrequest", [], "authentication.k8s.io", "v1", namespaced: true, etcd: "", stored: false, all: false;
    SelfSubjectAccessReview(authorization::SelfSubjectAccessReview) = "selfsubjectaccessreviews", "selfsubjectaccessreview", [], "authorization.k8s.io", "v1", namespaced: false, etcd: "", stored: false, all: false;
    SelfSubjectRulesReview(authorization::SelfSubjectRulesReview) = "selfsubjectrulesreviews", "selfsubjectrulesreview", [], "authorization.k8s.io", "v1", namespaced: false, etcd: "", stored: false, all: false;
    SubjectAccessReview(authorization::SubjectAccessReview) = "subjectaccessreviews", "subjectaccessreview", [], "authorization.k8s.io", "v1", namespaced: false, etcd: "", stored: false, all: false;
    LocalSubjectAccessReview(authorization::LocalSubjectAccessReview) = "localsubjectaccessreviews", "localsubjectaccessreview", [], "authorization.k8s.io", "v1", namespaced: true, etcd: "", stored: false, all: false;
    // The scale subresource's body (deployments/scale, replicasets/scale, statefulsets/scale); never a resource.
    Scale(k8s_openapi::api::autoscaling::v1::Scale) = "scales", "scale", [], "autoscaling", "v1", namespaced: true, etcd: "", stored: false, all: false;
}

/// The Kubernetes kind a variant stands for: the variant's name, except where two API groups share a kind
/// (`EventV1` is the `Event` of events.k8s.io).
const fn kind_string(variant: &'static str) -> &'static str {
    match variant.as_bytes() {
        b"EventV1" => "Event",
        _ => variant,
    }
}

impl Object {
    /// The object's resource row; a custom object's names the version it is at.
    pub fn info(&self) -> &'static ResourceInfo {
        match self {
            Object::Custom(o) => super::custom::row(o.def, o.version()),
            other => other.kind().info(),
        }
    }

    pub fn name(&self) -> &str {
        self.meta().name.as_deref().unwrap_or("")
    }

    pub fn namespace(&self) -> Option<&str> {
        self.meta().namespace.as_deref()
    }

    /// `ns/name` or `name`: the identity used in caches and traces.
    pub fn ns_name(&self) -> String {
        match self.namespace() {
            Some(ns) if self.info().namespaced => format!("{ns}/{}", self.name()),
            _ => self.name().to_string(),
        }
    }

    /// The etcd key this object is stored under.
    pub fn key(&self) -> String {
        self.info().key(self.namespace(), self.name())
    }

    pub fn resource_version(&self) -> u64 {
        self.meta().resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0)
    }
}

/// Finds a resource discovery lists by any name kubectl accepts: plural, singular, short name, Kind, or
/// `resource.group`.
pub fn lookup(name: &str) -> Option<&'static ResourceInfo> {
    let lower = name.to_ascii_lowercase();
    let (base, group) = match lower.split_once('.') {
        Some((b, g)) => (b.to_string(), Some(g.to_string())),
        None => (lower.clone(), None),
    };
    // `deployments.v1.apps`: resource.version.group.
    if let Some((version, g)) = group.as_deref().and_then(|g| g.split_once('.')) {
        let found =
            RESOURCES.iter().find(|r| r.discovered() && r.resource == base && r.version == version && (r.group == g));
        if found.is_some() {
            return found;
        }
    }
    RESOURCES.iter().find(|r| {
        r.discovered()
            && (r.resource == base
                || r.singular == base
                || r.short_names.contains(&base.as_str())
                || r.kind.name().eq_ignore_ascii_case(&base))
            && group.as_deref().is_none_or(|g| group_matches(r.group, g))
    })
}

/// Whether the group part of a typed resource name (`apps`, `k8s.io`, `stable.example.com`) names `group`:
/// the whole group, a dotted beginning of it, or its first label.
pub fn group_matches(group: &str, typed: &str) -> bool {
    typed == group || (group.starts_with(typed) && typed.contains('.')) || group.split('.').next() == Some(typed)
}

/// Finds a resource by group and plural name (`authorization.k8s.io`, `selfsubjectaccessreviews`), served or not.
pub fn lookup_resource(group: &str, resource: &str) -> Option<&'static ResourceInfo> {
    RESOURCES.iter().find(|r| r.group == group && r.resource == resource)
}

/// Finds the resource for an `apiVersion` + `kind` pair, as a manifest names it.
pub fn lookup_kind(api_version: &str, kind: &str) -> Option<&'static ResourceInfo> {
    RESOURCES.iter().find(|r| r.kind.name() == kind && r.api_version() == api_version)
}

impl ResourceInfo {
    /// Whether discovery lists it: every stored resource and the create-only ones (bindings, the reviews);
    /// evictions, scales and token requests exist only as subresources.
    pub fn discovered(&self) -> bool {
        self.stored || !matches!(self.resource, "evictions" | "scales" | "tokenrequests")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_apiservers_etcd_layout() {
        assert_eq!(Kind::Pod.info().key(Some("default"), "nginx"), "/registry/pods/default/nginx");
        assert_eq!(Kind::Node.info().key(None, "node01"), "/registry/minions/node01");
        assert_eq!(Kind::Service.info().key(Some("default"), "web"), "/registry/services/specs/default/web");
        assert_eq!(Kind::Endpoints.info().key(Some("default"), "web"), "/registry/services/endpoints/default/web");
        assert_eq!(
            Kind::Deployment.info().key(Some("kube-system"), "coredns"),
            "/registry/deployments/kube-system/coredns"
        );
        assert_eq!(Kind::Namespace.info().key(Some("ignored"), "dev"), "/registry/namespaces/dev");
    }

    #[test]
    fn lookup_accepts_every_name_kubectl_accepts() {
        for name in ["pods", "pod", "po", "Pod", "POD"] {
            assert_eq!(lookup(name).map(|r| r.kind), Some(Kind::Pod), "{name}");
        }
        assert_eq!(lookup("deploy").map(|r| r.kind), Some(Kind::Deployment));
        assert_eq!(lookup("deployments.apps").map(|r| r.kind), Some(Kind::Deployment));
        assert_eq!(lookup("deployments.v1.apps").map(|r| r.kind), Some(Kind::Deployment));
        assert_eq!(lookup("deployments.v2.apps"), None);
        assert_eq!(lookup("svc").map(|r| r.kind), Some(Kind::Service));
        // Create-only resources are found too (a list of them is the server's 405), subresource bodies not.
        assert_eq!(lookup("bindings").map(|r| r.kind), Some(Kind::Binding));
        assert_eq!(lookup("scale"), None);
        assert_eq!(lookup("widgets"), None);
        assert_eq!(lookup_kind("apps/v1", "Deployment").map(|r| r.kind), Some(Kind::Deployment));
        assert_eq!(lookup_kind("v1", "Deployment"), None);
    }

    #[test]
    fn every_kind_finds_its_own_resource_row() {
        for (i, row) in RESOURCES.iter().enumerate() {
            assert!(std::ptr::eq(row.kind.info(), &RESOURCES[i]));
        }
    }

    #[test]
    fn qualified_names_carry_the_group() {
        assert_eq!(Kind::Deployment.info().qualified(), "deployments.apps");
        assert_eq!(Kind::Pod.info().qualified(), "pods");
        assert_eq!(Kind::Deployment.info().group_kind(), "Deployment.apps");
    }
}
