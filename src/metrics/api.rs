//! The `metrics.k8s.io/v1beta1` API that metrics-server serves through kube-apiserver's aggregation layer:
//! `NodeMetrics` and `PodMetrics` (k8s.io/metrics `pkg/apis/metrics/v1beta1`), carried as their JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::api::{Kind, ResourceInfo};

/// The API group metrics-server registers (`APIService v1beta1.metrics.k8s.io`).
pub const GROUP: &str = "metrics.k8s.io";
pub const VERSION: &str = "v1beta1";

/// `nodes.metrics.k8s.io`. Not stored and not in discovery's static table (only an installed metrics-server
/// serves it); `kind` is the object it measures.
pub static NODE_METRICS: ResourceInfo = ResourceInfo {
    kind: Kind::Node,
    resource: "nodes",
    singular: "",
    short_names: &[],
    group: GROUP,
    version: VERSION,
    namespaced: false,
    etcd: "",
    stored: false,
    in_all: false,
};

/// `pods.metrics.k8s.io`.
pub static POD_METRICS: ResourceInfo = ResourceInfo {
    kind: Kind::Pod,
    resource: "pods",
    singular: "",
    short_names: &[],
    group: GROUP,
    version: VERSION,
    namespaced: true,
    etcd: "",
    stored: false,
    in_all: false,
};

/// The metadata metrics-server copies from the measured object.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

/// `cpu` (`123456789n`) and `memory` (`1024Ki`) quantities.
pub type ResourceList = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeMetrics {
    pub kind: String,
    pub api_version: String,
    pub metadata: Meta,
    pub timestamp: String,
    pub window: String,
    pub usage: ResourceList,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ContainerMetrics {
    pub name: String,
    pub usage: ResourceList,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMetrics {
    pub kind: String,
    pub api_version: String,
    pub metadata: Meta,
    pub timestamp: String,
    pub window: String,
    pub containers: Vec<ContainerMetrics>,
}

/// A `NodeMetricsList` or `PodMetricsList`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsList<T> {
    pub kind: String,
    pub api_version: String,
    pub metadata: BTreeMap<String, String>,
    pub items: Vec<T>,
}

pub fn api_version() -> String {
    format!("{GROUP}/{VERSION}")
}
