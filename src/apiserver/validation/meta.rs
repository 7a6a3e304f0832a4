//! `metadata` rules shared by every kind: `ValidateObjectMeta` on create (name or generateName, the kind's
//! name format, namespace, labels, annotations, owner references, finalizers) and `ValidateObjectMetaUpdate`
//! on update (name, namespace and uid immutable, resourceVersion present, no new finalizers while deleting).
//!
//! As the registry's `BeforeCreate` does, an object with `generateName` and no name yet is not reported as
//! nameless: the name is generated before validation. As `BeforeUpdate` does, generation, uid (when left
//! empty) and creationTimestamp are taken from the stored object, so they are not compared here.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::field::{self, Path};
use super::names::{self, NameRule};
use crate::api::Cause;

/// Finalizer names Kubernetes accepts without a domain prefix.
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

/// A `metav1.OwnerReference` as `encoding/json` prints it.
fn owner_reference_json(r: &OwnerReference) -> String {
    let mut s = format!(
        "{{\"apiVersion\":{},\"kind\":{},\"name\":{},\"uid\":{}",
        field::json_string(&r.api_version),
        field::json_string(&r.kind),
        field::json_string(&r.name),
        field::json_string(&r.uid)
    );
    if let Some(c) = r.controller {
        s.push_str(&format!(",\"controller\":{c}"));
    }
    if let Some(b) = r.block_owner_deletion {
        s.push_str(&format!(",\"blockOwnerDeletion\":{b}"));
    }
    s.push('}');
    s
}

fn validate_owner_references(meta: &ObjectMeta, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    for r in meta.owner_references.iter().flatten() {
        let version = r.api_version.rsplit('/').next().unwrap_or("");
        if version.is_empty() {
            errs.push(field::invalid_str(&path.child("apiVersion"), &r.api_version, "version must not be empty"));
        }
        if r.kind.is_empty() {
            errs.push(field::invalid_str(&path.child("kind"), &r.kind, "must not be empty"));
        }
        if r.name.is_empty() {
            errs.push(field::invalid_str(&path.child("name"), &r.name, "must not be empty"));
        }
        if r.uid.is_empty() {
            errs.push(field::invalid_str(&path.child("uid"), &r.uid, "must not be empty"));
        }
        if r.api_version == "v1" && r.kind == "Event" {
            errs.push(field::invalid(
                path,
                &owner_reference_json(r),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => errs.push(field::invalid(
                    path,
                    &format!(
                        "[{}]",
                        meta.owner_references
                            .iter()
                            .flatten()
                            .map(owner_reference_json)
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                    &format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    ),
                )),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

fn validate_finalizers(finalizers: &[String], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for f in finalizers {
        for m in names::is_qualified_name(f) {
            errs.push(field::invalid_str(path, f, &m));
        }
    }
    if finalizers.iter().any(|f| f == "orphan") && finalizers.iter().any(|f| f == "foregroundDeletion") {
        errs.push(field::invalid(
            path,
            &field::json_strings(Some(finalizers)),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

/// The core wrapper's extra finalizer rule: a name without `/` must be a standard finalizer.
pub fn validate_kube_finalizer_name(name: &str, path: &Path) -> Vec<Cause> {
    if !name.contains('/') && !STANDARD_FINALIZERS.contains(&name) {
        vec![field::invalid_str(path, name, "name is neither a standard finalizer name nor is it fully qualified")]
    } else {
        Vec::new()
    }
}

/// `ValidateObjectMeta` (core flavour, with the standard-finalizer rule).
pub fn validate_object_meta(meta: &ObjectMeta, namespaced: bool, rule: NameRule) -> Vec<Cause> {
    let path = Path::new("metadata");
    let mut errs = Vec::new();
    let generate_name = meta.generate_name.as_deref().unwrap_or("");
    let name = meta.name.as_deref().unwrap_or("");
    if !generate_name.is_empty() {
        for m in names::check_name(rule, generate_name, true) {
            errs.push(field::invalid_str(&path.child("generateName"), generate_name, &m));
        }
    }
    if name.is_empty() {
        if generate_name.is_empty() {
            errs.push(field::required(&path.child("name"), "name or generateName is required"));
        }
    } else {
        for m in names::check_name(rule, name, false) {
            errs.push(field::invalid_str(&path.child("name"), name, &m));
        }
    }
    if namespaced {
        let ns = meta.namespace.as_deref().unwrap_or("");
        if ns.is_empty() {
            errs.push(field::required(&path.child("namespace"), ""));
        } else {
            for m in names::check_name(NameRule::Label, ns, false) {
                errs.push(field::invalid_str(&path.child("namespace"), ns, &m));
            }
        }
    }
    if let Some(g) = meta.generation.filter(|g| *g < 0) {
        errs.push(field::invalid_int(&path.child("generation"), g, "must be greater than or equal to 0"));
    }
    errs.extend(names::validate_labels(meta.labels.as_ref(), &path.child("labels")));
    errs.extend(names::validate_annotations(meta.annotations.as_ref(), &path.child("annotations")));
    errs.extend(validate_owner_references(meta, &path.child("ownerReferences")));
    let finalizers = meta.finalizers.as_deref().unwrap_or(&[]);
    errs.extend(validate_finalizers(finalizers, &path.child("finalizers")));
    for (i, f) in finalizers.iter().enumerate() {
        errs.extend(validate_kube_finalizer_name(f, &path.child("finalizers").index(i)));
    }
    errs
}

/// `ValidateObjectMetaUpdate` (core flavour).
pub fn validate_object_meta_update(new: &ObjectMeta, old: &ObjectMeta) -> Vec<Cause> {
    let path = Path::new("metadata");
    let mut errs = Vec::new();
    let new_finalizers = new.finalizers.as_deref().unwrap_or(&[]);
    if old.deletion_timestamp.is_some() {
        let old_finalizers = old.finalizers.as_deref().unwrap_or(&[]);
        let mut extra: Vec<String> = new_finalizers.iter().filter(|f| !old_finalizers.contains(f)).cloned().collect();
        extra.sort();
        extra.dedup();
        if !extra.is_empty() {
            errs.push(field::forbidden(
                &path.child("finalizers"),
                &format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers {}",
                    field::go_string_slice(&extra)
                ),
            ));
        }
    }
    let rv = new.resource_version.as_deref().unwrap_or("");
    if rv.is_empty() {
        errs.push(field::invalid_str(&path.child("resourceVersion"), rv, "must be specified for an update"));
    }
    let immutable = |p: &str, n: Option<&String>, o: Option<&String>| -> Option<Cause> {
        let n = n.map(String::as_str).unwrap_or("");
        let o = o.map(String::as_str).unwrap_or("");
        (n != o).then(|| field::invalid_str(&path.child(p), n, "field is immutable"))
    };
    errs.extend(immutable("name", new.name.as_ref(), old.name.as_ref()));
    errs.extend(immutable("namespace", new.namespace.as_ref(), old.namespace.as_ref()));
    if new.uid.as_deref().is_some_and(|u| !u.is_empty()) {
        errs.extend(immutable("uid", new.uid.as_ref(), old.uid.as_ref()));
    }
    errs.extend(names::validate_labels(new.labels.as_ref(), &path.child("labels")));
    errs.extend(names::validate_annotations(new.annotations.as_ref(), &path.child("annotations")));
    errs.extend(validate_owner_references(new, &path.child("ownerReferences")));
    for (i, f) in new_finalizers.iter().enumerate() {
        errs.extend(validate_kube_finalizer_name(f, &path.child("finalizers").index(i)));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn meta(name: &str) -> ObjectMeta {
        ObjectMeta { name: Some(name.into()), namespace: Some("default".into()), ..Default::default() }
    }

    fn rendered(errs: &[Cause]) -> Vec<String> {
        errs.iter().map(Cause::render).collect()
    }

    #[test]
    fn a_nameless_object_needs_a_name_or_generate_name() {
        let m = ObjectMeta { namespace: Some("default".into()), ..Default::default() };
        assert_eq!(
            rendered(&validate_object_meta(&m, true, NameRule::Subdomain)),
            vec!["metadata.name: Required value: name or generateName is required"]
        );
        let generated = ObjectMeta { generate_name: Some("web-".into()), ..m };
        assert!(validate_object_meta(&generated, true, NameRule::Subdomain).is_empty());
    }

    #[test]
    fn an_uppercase_name_is_an_invalid_subdomain() {
        assert_eq!(
            rendered(&validate_object_meta(&meta("Web"), true, NameRule::Subdomain)),
            vec!["metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
    }

    #[test]
    fn namespaced_objects_need_a_namespace() {
        let m = ObjectMeta { name: Some("x".into()), ..Default::default() };
        assert_eq!(
            rendered(&validate_object_meta(&m, true, NameRule::Subdomain)),
            vec!["metadata.namespace: Required value"]
        );
        assert!(validate_object_meta(&m, false, NameRule::Subdomain).is_empty());
    }

    #[test]
    fn bad_label_keys_and_values_are_reported_on_the_labels_path() {
        let mut m = meta("x");
        let mut labels = BTreeMap::new();
        labels.insert("app".to_string(), "bad value".to_string());
        m.labels = Some(labels);
        let errs = rendered(&validate_object_meta(&m, true, NameRule::Subdomain));
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("metadata.labels: Invalid value: \"bad value\": a valid label must be an empty string")
        );
    }

    #[test]
    fn unqualified_finalizers_must_be_standard() {
        let mut m = meta("x");
        m.finalizers = Some(vec!["kubernetes".into(), "custom".into()]);
        assert_eq!(
            rendered(&validate_object_meta(&m, true, NameRule::Subdomain)),
            vec!["metadata.finalizers[1]: Invalid value: \"custom\": name is neither a standard finalizer name nor is it fully qualified"]
        );
    }

    #[test]
    fn names_and_namespaces_cannot_change_on_update() {
        let mut old = meta("a");
        old.resource_version = Some("5".into());
        let mut new = meta("b");
        new.resource_version = Some("5".into());
        new.namespace = Some("other".into());
        assert_eq!(
            rendered(&validate_object_meta_update(&new, &old)),
            vec![
                "metadata.name: Invalid value: \"b\": field is immutable",
                "metadata.namespace: Invalid value: \"other\": field is immutable"
            ]
        );
    }

    #[test]
    fn updates_need_a_resource_version() {
        let old = meta("a");
        assert_eq!(
            rendered(&validate_object_meta_update(&old, &old)),
            vec!["metadata.resourceVersion: Invalid value: \"\": must be specified for an update"]
        );
    }
}
