//! `kubectl describe resourcequota` (`describeQuota` in kubectl's `pkg/describe/describe.go`): the quota's
//! scopes with their help texts, then one row per resource of `status.hard`, its use shown in the hard
//! limit's format. No labels, annotations or events.

use k8s_openapi::api::core::v1 as core;

use crate::api::quantity::Quantity;

use super::{name, namespace, Writer};

pub(super) fn describe_quota(w: &mut Writer, q: &core::ResourceQuota) {
    w.write(0, &format!("Name:\t{}\n", name(&q.metadata)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(&q.metadata)));
    let mut scopes = q.spec.as_ref().and_then(|s| s.scopes.clone()).unwrap_or_default();
    if !scopes.is_empty() {
        scopes.sort();
        w.write(0, &format!("Scopes:\t{}\n", scopes.join(", ")));
        for scope in &scopes {
            if let Some(help) = super::scope_help(scope) {
                w.write(0, &format!(" * {help}\n"));
            }
        }
    }
    w.write(0, "Resource\tUsed\tHard\n");
    w.write(0, "--------\t----\t----\n");
    let status = q.status.clone().unwrap_or_default();
    let used = status.used.unwrap_or_default();
    for (resource, hard) in status.hard.unwrap_or_default() {
        let hard = Quantity::parse_or_zero(&hard.0);
        let used = used.get(&resource).map(|u| in_format_of(&Quantity::parse_or_zero(&u.0), &hard)).unwrap_or_default();
        w.write(0, &format!("{resource}\t{used}\t{}\n", hard.canonical()));
    }
}

/// The used quantity as describe prints it: when its format differs from the hard limit's, its integer
/// value (rounded up) in the hard limit's format (`resource.NewQuantity(used.Value(), hard.Format)`).
fn in_format_of(used: &Quantity, hard: &Quantity) -> String {
    if used.format() == hard.format() {
        return used.canonical();
    }
    Quantity::from_nanos(used.value() * 1_000_000_000, hard.format()).canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_is_shown_in_the_hard_limits_format() {
        let q = |s: &str| Quantity::parse_or_zero(s);
        assert_eq!(in_format_of(&q("500m"), &q("1")), "500m");
        assert_eq!(in_format_of(&q("0"), &q("1Gi")), "0");
        assert_eq!(in_format_of(&q("128Mi"), &q("1G")), "134217728");
        assert_eq!(in_format_of(&q("1500m"), &q("2Gi")), "2");
    }
}
