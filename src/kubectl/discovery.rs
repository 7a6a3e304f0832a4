//! kubectl's discovery: which resources the server serves, read from its aggregated discovery documents
//! (`GET /api` and `GET /apis` asking for `apidiscovery.k8s.io/v2`), and the resource a typed name means.
//! The built-in kinds are known without asking (the real kubectl has them in its discovery cache); a name
//! that is none of them makes kubectl read discovery again, as the real one does on a cache miss, so a
//! resource a CustomResourceDefinition added is found as soon as the apiserver serves it.

use serde_json::Value;

use super::{Context, Failure};
use crate::api::custom;
use crate::api::{lookup, ApiResponse, Kind, ResourceInfo, Verb};

/// One resource as discovery lists it, at its group's preferred version.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovered {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub verbs: Vec<String>,
    /// Whether this is the group's preferred (first listed) version.
    pub preferred: bool,
}

impl Discovered {
    /// The resource row requests name it by: the built-in one, or the custom kind's at this version.
    pub fn row(&self) -> &'static ResourceInfo {
        let built_in = crate::api::RESOURCES
            .iter()
            .find(|r| r.group == self.group && r.version == self.version && r.resource == self.resource);
        if let Some(row) = built_in {
            return row;
        }
        match custom::kind(&self.group, &self.resource, &self.singular, &self.kind, self.namespaced) {
            Kind::Custom(def) => custom::row(def, &self.version),
            other => other.info(),
        }
    }

    /// `group/version`, or the version alone for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `resource.group`, or the resource alone for the core group.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// Whether kubectl takes `name` (lower-cased, without a group) for this resource.
    fn named(&self, name: &str) -> bool {
        self.resource == name
            || self.singular == name
            || self.short_names.iter().any(|s| s == name)
            || self.kind.eq_ignore_ascii_case(name)
    }
}

/// The resources discovery listed, as the API path router asks for them.
pub struct Listed<'a>(pub &'a [Discovered]);

impl crate::apiserver::rest::CustomResources for Listed<'_> {
    fn serves(&self, group: &str, version: &str) -> bool {
        self.0.iter().any(|d| d.group == group && d.version == version)
    }

    fn resource(&self, group: &str, version: &str, resource: &str) -> Option<&'static ResourceInfo> {
        let found = self.0.iter().find(|d| d.group == group && d.version == version && d.resource == resource);
        found.map(Discovered::row)
    }
}

/// Reads the aggregated discovery documents: every resource of every version of every group (the
/// preferred version first), subresources left out.
pub async fn discover(ctx: &Context) -> Result<Vec<Discovered>, Failure> {
    let mut out = Vec::new();
    for path in ["/api", "/apis"] {
        let mut req = ctx.request(Verb::Get, crate::api::Kind::Namespace.info());
        req.non_resource_path = Some(path.to_string());
        req.params.aggregated_discovery = true;
        let body = match ctx.call(req).await? {
            ApiResponse::Raw { body, .. } => body,
            _ => continue,
        };
        let list: Value = serde_json::from_str(&body)
            .map_err(|e| Failure(format!("error: couldn't get resource list for {path}: {e}")))?;
        for group in list["items"].as_array().into_iter().flatten() {
            let name = group["metadata"]["name"].as_str().unwrap_or("");
            for (index, version) in group["versions"].as_array().into_iter().flatten().enumerate() {
                let version_name = version["version"].as_str().unwrap_or("");
                for r in version["resources"].as_array().into_iter().flatten() {
                    let strings = |key: &str| -> Vec<String> {
                        r[key].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
                    };
                    out.push(Discovered {
                        group: name.to_string(),
                        version: version_name.to_string(),
                        resource: r["resource"].as_str().unwrap_or("").to_string(),
                        singular: r["singularResource"].as_str().unwrap_or("").to_string(),
                        kind: r["responseKind"]["kind"].as_str().unwrap_or("").to_string(),
                        namespaced: r["scope"] == "Namespaced",
                        short_names: strings("shortNames"),
                        categories: strings("categories"),
                        verbs: strings("verbs"),
                        preferred: index == 0,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The resource a typed name means (`po`, `deploy`, `crontabs`, `ct`, `crontabs.stable.example.com`,
/// `crontabs.v1.stable.example.com`), or kubectl's error.
pub async fn resolve(ctx: &Context, name: &str) -> Result<&'static ResourceInfo, Failure> {
    if let Some(info) = lookup(name) {
        return Ok(info);
    }
    let unknown = || Failure(format!("error: the server doesn't have a resource type \"{name}\""));
    let resources = discover(ctx).await?;
    find(&resources, name).map(Discovered::row).ok_or_else(unknown)
}

/// The resource a manifest's `apiVersion` and `kind` name, or None when the server serves no such kind.
pub async fn resolve_kind(
    ctx: &Context,
    api_version: &str,
    kind: &str,
) -> Result<Option<&'static ResourceInfo>, Failure> {
    if let Some(info) = crate::api::lookup_kind(api_version, kind) {
        return Ok(Some(info));
    }
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let resources = discover(ctx).await?;
    let found = resources.iter().find(|r| r.group == group && r.kind == kind);
    Ok(found.map(|r| Discovered { version: version.to_string(), ..r.clone() }.row()))
}

/// The discovered resource `name` means, as kubectl's RESTMapper finds it.
pub fn find<'a>(resources: &'a [Discovered], name: &str) -> Option<&'a Discovered> {
    let lower = name.to_ascii_lowercase();
    let (base, group) = match lower.split_once('.') {
        Some((b, g)) => (b, Some(g)),
        None => (lower.as_str(), None),
    };
    if let Some((version, g)) = group.and_then(|g| g.split_once('.')) {
        let versioned = resources.iter().find(|r| r.named(base) && r.version == version && r.group == g);
        if versioned.is_some() {
            return versioned;
        }
    }
    resources.iter().find(|r| r.named(base) && group.is_none_or(|g| crate::api::kinds::group_matches(&r.group, g)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crontabs() -> Discovered {
        Discovered {
            group: "stable.example.com".into(),
            version: "v1".into(),
            resource: "crontabs".into(),
            singular: "crontab".into(),
            kind: "CronTab".into(),
            namespaced: true,
            short_names: vec!["ct".into()],
            categories: vec!["all".into()],
            verbs: vec!["get".into()],
            preferred: true,
        }
    }

    #[test]
    fn a_custom_resource_is_found_by_every_name_kubectl_takes() {
        let list = vec![crontabs()];
        for name in [
            "crontabs",
            "crontab",
            "ct",
            "CronTab",
            "crontabs.stable.example.com",
            "crontabs.v1.stable.example.com",
            "crontabs.stable",
        ] {
            assert_eq!(find(&list, name).map(|d| d.resource.as_str()), Some("crontabs"), "{name}");
        }
        assert!(find(&list, "crontabs.v2.stable.example.com").is_none());
        assert!(find(&list, "widgets").is_none());
        let row = crontabs().row();
        assert_eq!(
            (row.api_version(), row.namespaced, row.kind.name()),
            ("stable.example.com/v1".to_string(), true, "CronTab")
        );
    }
}
