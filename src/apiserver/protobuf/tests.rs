//! The decoder against an independent encoder: the k8s-pb crate's prost messages, generated from
//! Kubernetes' own `.proto` files, encode what client-go would send.

use std::collections::BTreeMap;

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::core::v1 as core;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::encoding::encoded_len_varint;
use prost::Message;
use serde_json::{json, Value};

use super::{decode, missing_kinds, MAGIC};
use crate::api::RESOURCES;

/// A message in its envelope, as client-go's protobuf serializer writes it.
fn wire(api_version: &str, kind: &str, message: &impl Message) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta { api_version: Some(api_version.into()), kind: Some(kind.into()) }),
        raw: Some(message.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    body
}

fn meta_named(name: &str) -> Option<meta::ObjectMeta> {
    Some(meta::ObjectMeta { name: Some(name.into()), ..Default::default() })
}

fn deployment() -> apps::Deployment {
    let labels: BTreeMap<String, String> = [("app".to_string(), "web".to_string())].into();
    let limits: BTreeMap<String, Quantity> = [("cpu".to_string(), Quantity { string: Some("500m".into()) })].into();
    let container = core::Container {
        name: Some("nginx".into()),
        image: Some("nginx:1.27".into()),
        ports: vec![core::ContainerPort {
            container_port: Some(80),
            protocol: Some("TCP".into()),
            ..Default::default()
        }],
        resources: Some(core::ResourceRequirements { limits, ..Default::default() }),
        readiness_probe: Some(core::Probe {
            handler: Some(core::ProbeHandler {
                http_get: Some(core::HttpGetAction {
                    path: Some("/".into()),
                    port: Some(IntOrString { r#type: Some(1), int_val: Some(0), str_val: Some("http".into()) }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            period_seconds: Some(5),
            ..Default::default()
        }),
        ..Default::default()
    };
    apps::Deployment {
        metadata: Some(meta::ObjectMeta {
            name: Some("web".into()),
            labels: labels.clone(),
            creation_timestamp: Some(meta::Time::default()),
            ..Default::default()
        }),
        spec: Some(apps::DeploymentSpec {
            replicas: Some(3),
            selector: Some(meta::LabelSelector { match_labels: labels.clone(), ..Default::default() }),
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta::ObjectMeta { labels, ..Default::default() }),
                spec: Some(core::PodSpec { containers: vec![container], ..Default::default() }),
            }),
            strategy: Some(apps::DeploymentStrategy {
                rolling_update: Some(apps::RollingUpdateDeployment {
                    max_surge: Some(IntOrString { r#type: Some(0), int_val: Some(1), str_val: Some(String::new()) }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        status: Some(apps::DeploymentStatus::default()),
    }
}

#[test]
fn a_deployment_decodes_to_the_json_its_go_value_marshals_to() {
    let body = wire("apps/v1", "Deployment", &deployment());
    let v = decode(&body, ("apps/v1", "Deployment")).expect("decodes");
    assert_eq!(v["apiVersion"], "apps/v1");
    assert_eq!(v["kind"], "Deployment");
    assert_eq!(v["metadata"]["name"], "web");
    assert_eq!(v["metadata"]["labels"], json!({"app": "web"}));
    // The zero time is an empty message on the wire and `null` in JSON, as Go marshals it.
    assert_eq!(v["metadata"]["creationTimestamp"], Value::Null);
    assert_eq!(v["spec"]["replicas"], 3);
    assert_eq!(v["spec"]["selector"]["matchLabels"]["app"], "web");
    assert_eq!(v["spec"]["strategy"]["rollingUpdate"]["maxSurge"], 1);
    assert!(v["spec"]["strategy"]["rollingUpdate"].get("maxUnavailable").is_none(), "a nil pointer is left out");
    let c = &v["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["name"], "nginx");
    assert_eq!(c["image"], "nginx:1.27");
    assert_eq!(c["ports"], json!([{"containerPort": 80, "protocol": "TCP"}]));
    assert_eq!(c["resources"], json!({"limits": {"cpu": "500m"}}));
    // ProbeHandler is embedded inline: its fields are the probe's in JSON.
    assert_eq!(c["readinessProbe"]["httpGet"], json!({"path": "/", "port": "http"}));
    assert_eq!(c["readinessProbe"]["periodSeconds"], 5);
    // An empty status struct is `{}`, as for a JSON client.
    assert_eq!(v["status"], json!({}));
    // A non-pointer, non-omitempty field a client left unset is its zero value, as Go marshals it.
    assert_eq!(v["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"].get("host"), None);
    assert_eq!(v["spec"]["template"]["metadata"]["creationTimestamp"], Value::Null);
}

#[test]
fn bytes_become_base64_and_maps_of_them_keep_every_key() {
    let secret = core::Secret {
        metadata: meta_named("db"),
        data: [("password".to_string(), b"s3cr\xffet".to_vec()), ("user".to_string(), b"admin".to_vec())].into(),
        r#type: Some("Opaque".into()),
        ..Default::default()
    };
    let v = decode(&wire("v1", "Secret", &secret), ("v1", "Secret")).expect("decodes");
    assert_eq!(v["data"], json!({"password": "czNjcv9ldA==", "user": "YWRtaW4="}));
    assert_eq!(v["type"], "Opaque");
    assert!(v.get("immutable").is_none());
}

#[test]
fn an_eviction_carries_its_delete_options_and_delete_options_decode_in_any_group() {
    let eviction = k8s_pb::api::policy::v1::Eviction {
        metadata: Some(meta::ObjectMeta {
            name: Some("web-1".into()),
            namespace: Some("default".into()),
            ..Default::default()
        }),
        delete_options: Some(meta::DeleteOptions {
            grace_period_seconds: Some(0),
            dry_run: vec!["All".into()],
            ..Default::default()
        }),
    };
    let v = decode(&wire("policy/v1", "Eviction", &eviction), ("policy/v1", "Eviction")).expect("decodes");
    assert_eq!(v["metadata"]["namespace"], "default");
    assert_eq!(v["deleteOptions"]["gracePeriodSeconds"], 0, "a pointer set to zero is kept");
    assert_eq!(v["deleteOptions"]["dryRun"], json!(["All"]));

    let options = meta::DeleteOptions { propagation_policy: Some("Foreground".into()), ..Default::default() };
    let v = decode(&wire("apps/v1", "DeleteOptions", &options), ("meta.k8s.io/v1", "DeleteOptions")).expect("decodes");
    assert_eq!(v["propagationPolicy"], "Foreground");
}

#[test]
fn an_envelope_without_type_meta_takes_the_endpoints_kind() {
    let review = k8s_pb::api::authentication::v1::SelfSubjectReview { metadata: None, status: None };
    let unknown = Unknown { raw: Some(review.encode_to_vec()), ..Default::default() };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    let v = decode(&body, ("authentication.k8s.io/v1", "SelfSubjectReview")).expect("decodes");
    assert_eq!(v["kind"], "SelfSubjectReview");
    assert_eq!(v["apiVersion"], "authentication.k8s.io/v1");
    assert_eq!(v["metadata"], json!({"creationTimestamp": null}));
}

#[test]
fn fields_this_schema_does_not_know_are_skipped() {
    let mut raw = core::ConfigMap { metadata: meta_named("cfg"), ..Default::default() }.encode_to_vec();
    // Field 99, a varint, then field 98, a length-delimited blob: a newer client's additions.
    raw.extend([0x98, 0x06, 0x2a, 0x92, 0x06, 0x02, b'h', b'i']);
    let unknown = Unknown {
        type_meta: Some(TypeMeta { api_version: Some("v1".into()), kind: Some("ConfigMap".into()) }),
        raw: Some(raw),
        ..Default::default()
    };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    let v = decode(&body, ("v1", "ConfigMap")).expect("decodes");
    assert_eq!(v["metadata"]["name"], "cfg");
}

#[test]
fn bad_bodies_are_refused_with_the_handlers_messages() {
    let e = decode(b"{\"kind\":\"Pod\"}", ("v1", "Pod")).unwrap_err();
    assert_eq!(
        e.message_for("Pod", b"{\"kind\":\"Pod\"}"),
        "the object provided is unrecognized (must be of type Pod): provided data does not appear to be a \
         protobuf message, expected prefix [107 56 115 0] ({\"kind\":\"Pod\"})"
    );

    let body = wire("apps/v1", "Frobnicator", &deployment());
    let e = decode(&body, ("apps/v1", "Deployment")).unwrap_err();
    assert_eq!(
        e.message_for("Deployment", &body),
        "Frobnicator in version \"v1\" cannot be handled as a Deployment: no kind \"Frobnicator\" is registered \
         for version \"apps/v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""
    );

    // Cut anywhere but between the envelope's two fields, the body is refused, never misread or a panic.
    let type_meta = TypeMeta { api_version: Some("apps/v1".into()), kind: Some("Deployment".into()) };
    let unknown =
        Unknown { type_meta: Some(type_meta.clone()), raw: Some(deployment().encode_to_vec()), ..Default::default() };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    let between = MAGIC.len() + 1 + encoded_len_varint(type_meta.encoded_len() as u64) + type_meta.encoded_len();
    for end in (MAGIC.len() + 1..body.len()).filter(|end| *end != between) {
        if let Ok(v) = decode(&body[..end], ("apps/v1", "Deployment")) {
            panic!("a body cut at {end} of {} decoded: {v}", body.len());
        }
    }
    let e = decode(&body[..body.len() - 3], ("apps/v1", "Deployment")).unwrap_err();
    assert_eq!(e.message, "unexpected EOF");
}

#[test]
fn a_wrong_wire_type_names_the_field() {
    // ObjectMeta.name (1) sent as a varint.
    let raw = [0x0a, 0x02, 0x08, 0x01];
    let unknown = Unknown { raw: Some(raw.to_vec()), ..Default::default() };
    let mut body = MAGIC.to_vec();
    body.extend(unknown.encode_to_vec());
    let e = decode(&body, ("v1", "ConfigMap")).unwrap_err();
    assert_eq!(e.message, "proto: wrong wireType = 0 for field name");
}

#[test]
fn micro_times_keep_their_microseconds_and_times_their_seconds() {
    let lease = k8s_pb::api::coordination::v1::Lease {
        metadata: Some(meta::ObjectMeta {
            name: Some("node-1".into()),
            creation_timestamp: Some(meta::Time { seconds: Some(1_700_000_000), nanos: Some(0) }),
            ..Default::default()
        }),
        spec: Some(k8s_pb::api::coordination::v1::LeaseSpec {
            renew_time: Some(meta::MicroTime { seconds: Some(1_700_000_001), nanos: Some(123_456_789) }),
            ..Default::default()
        }),
    };
    let v =
        decode(&wire("coordination.k8s.io/v1", "Lease", &lease), ("coordination.k8s.io/v1", "Lease")).expect("decodes");
    assert_eq!(v["metadata"]["creationTimestamp"], "2023-11-14T22:13:20Z");
    assert_eq!(v["spec"]["renewTime"], "2023-11-14T22:13:21.123456Z");
}

#[test]
fn every_served_kind_has_its_go_type_in_the_schema() {
    // The apiextensions and aggregator kinds live outside k8s.io/api, and no client sends them in protobuf
    // (kubectl's typed clients are for built-in kinds; CRDs and APIServices are applied as JSON).
    let outside = ["apiextensions.k8s.io", "apiregistration.k8s.io"];
    let kinds: Vec<(String, &str)> = RESOURCES
        .iter()
        .filter(|r| r.stored && !outside.contains(&r.group))
        .map(|r| (r.api_version(), r.kind.name()))
        .collect();
    let missing = missing_kinds(kinds.iter().map(|(v, k)| (v.as_str(), *k)));
    assert!(missing.is_empty(), "kinds served without a protobuf schema: {missing:?}");
}
