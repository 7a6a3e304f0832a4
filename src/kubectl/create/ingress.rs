//! `kubectl create ingress NAME --rule=host/path=service:port[,tls[=secret]] … [--default-backend=svc:port]
//! [--class=…] [--annotation=k=v]`, built as kubectl's `create_ingress.go` builds it: rules of one host share
//! a rule, a path ending in `*` is a Prefix path (else Exact), a port that is not a number is a port name,
//! and `tls` entries group hosts by secret.

use serde_json::{json, Map, Value};

use crate::api::Kind;

use super::super::common;
use super::super::{Context, Failure};
use super::{name, send};

/// Whether `rule` has kubectl's shape: `host/path=svc:port` then optionally `,tls` or `,tls=secret`
/// (host of word characters, `*`, `-` and `.`; path from `/` up to `,` or `=`; name and port of word
/// characters and `-`).
fn valid_rule(rule: &str) -> bool {
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    let (main, tls) = match rule.split_once(',') {
        Some((m, t)) => (m, Some(t)),
        None => (rule, None),
    };
    let tls_ok = match tls {
        None => true,
        Some(t) => match t.strip_prefix("tls") {
            Some("") => true,
            Some(rest) => word(rest.strip_prefix('=').unwrap_or(rest)),
            None => false,
        },
    };
    let Some(slash) = main.find('/') else { return false };
    let host = &main[..slash];
    let host_ok = host.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '*' | '-' | '.'));
    let Some((path, backend)) = main[slash..].split_once('=') else { return false };
    let backend_ok = match backend.split_once(':') {
        Some((svc, port)) => word(svc) && word(port),
        None => false,
    };
    tls_ok && host_ok && !path.contains('\n') && backend_ok
}

/// `svc:port` as a backend: a numeric port is a number, anything else a port name.
fn backend(service: &str) -> Value {
    let (name, port) = service.split_once(':').unwrap_or((service, ""));
    let port = match port.parse::<i32>() {
        Ok(n) => json!({"number": n}),
        Err(_) => json!({"name": port}),
    };
    json!({"service": {"name": name, "port": port}})
}

fn path_of(path_and_service: &str) -> Value {
    let (path, service) = path_and_service.split_once('=').unwrap_or((path_and_service, ""));
    let mut path = format!("/{path}");
    let mut path_type = "Exact";
    if path.ends_with('*') {
        path.pop();
        path_type = "Prefix";
    }
    json!({"backend": backend(service), "path": path, "pathType": path_type})
}

fn rules(rules: &[String]) -> Vec<Value> {
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for rule in rules {
        let main = rule.split(',').next().unwrap_or_default();
        let (host, rest) = main.split_once('/').unwrap_or((main, ""));
        let path = path_of(rest);
        match out.iter_mut().find(|(h, _)| h == host) {
            Some((_, paths)) => paths.push(path),
            None => out.push((host.to_string(), vec![path])),
        }
    }
    out.into_iter()
        .map(|(host, paths)| {
            let mut r = json!({"http": {"paths": paths}});
            if !host.is_empty() {
                r["host"] = json!(host);
            }
            r
        })
        .collect()
}

/// The `tls` entries: one per secret, holding the hosts of the rules that name it (each host once).
fn tls(rules: &[String]) -> Vec<Value> {
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for rule in rules {
        let parts: Vec<&str> = rule.split(',').collect();
        if parts.len() != 2 {
            continue;
        }
        let host = rule.split('/').next().unwrap_or_default().to_string();
        let secret = parts[1].split('=').nth(1).unwrap_or("").to_string();
        if seen.contains(&host) {
            continue;
        }
        seen.push(host.clone());
        if let Some((_, hosts)) = entries.iter_mut().find(|(s, _)| *s == secret) {
            hosts.push(host);
            continue;
        }
        if !host.is_empty() || !secret.is_empty() {
            entries.push((secret, if host.is_empty() { Vec::new() } else { vec![host] }));
        }
    }
    entries
        .into_iter()
        .map(|(secret, hosts)| {
            let mut t = json!({});
            if !hosts.is_empty() {
                t["hosts"] = json!(hosts);
            }
            if !secret.is_empty() {
                t["secretName"] = json!(secret);
            }
            t
        })
        .collect()
}

pub(super) async fn ingress(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create ingress")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let rule_args = ctx.args.all(&["rule"]);
    let default_backend = ctx.args.get(&["default-backend"]).unwrap_or("");
    if default_backend.is_empty() && rule_args.is_empty() {
        return Err(common::error("not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)"));
    }
    if let Some(bad) = rule_args.iter().find(|r| !valid_rule(r)) {
        return Err(common::error(format!(
            "rule {bad} is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]"
        )));
    }
    let mut annotations = Map::new();
    for a in ctx.args.all(&["annotation"]) {
        match a.split_once('=') {
            Some((k, v)) => annotations.insert(k.to_string(), json!(v)),
            None => {
                return Err(common::error(format!("annotation {a} is invalid and should be in format key=[value]")))
            }
        };
    }
    if !default_backend.is_empty() && default_backend.split(':').count() != 2 {
        return Err(common::error("default-backend should be in format servicename:serviceport"));
    }
    let mut spec = json!({});
    if let Some(class) = ctx.args.get(&["class"]).filter(|c| !c.is_empty()) {
        spec["ingressClassName"] = json!(class);
    }
    if !default_backend.is_empty() {
        spec["defaultBackend"] = backend(default_backend);
    }
    let (rules, tls) = (rules(&rule_args), tls(&rule_args));
    if !rules.is_empty() {
        spec["rules"] = Value::Array(rules);
    }
    if !tls.is_empty() {
        spec["tls"] = Value::Array(tls);
    }
    let mut metadata = json!({"name": name});
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    let obj = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": metadata, "spec": spec, "status": {"loadBalancer": {}}});
    send(ctx, Kind::Ingress, obj, dry, Some("failed to create ingress: ")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_checked_against_kubectls_shape() {
        for ok in ["foo.com/bar=svc1:80", "/p=svc2:http,tls=sec", "foo.com/*=svc:8080,tls", "*.a.io/x/y*=s:1"] {
            assert!(valid_rule(ok), "{ok}");
        }
        for bad in ["bad", "a.com=s1:80", "a.com/x=s1", "a.com/x=s1:80,tl", "a.com/x=s:80,tls=a b"] {
            assert!(!valid_rule(bad), "{bad}");
        }
    }

    #[test]
    fn hosts_share_a_rule_and_tls_groups_hosts_by_secret() {
        let args: Vec<String> =
            ["a.com/x=s1:80", "a.com/y*=s2:81,tls=t1", "b.com/=s3:82,tls=t1", "c.com/z=s4:http,tls"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        let r = rules(&args);
        assert_eq!(r.len(), 3);
        assert_eq!(
            r[0]["http"]["paths"][1],
            json!({"backend": {"service": {"name": "s2", "port": {"number": 81}}}, "path": "/y", "pathType": "Prefix"})
        );
        assert_eq!(r[2]["http"]["paths"][0]["backend"]["service"]["port"], json!({"name": "http"}));
        assert_eq!(
            tls(&args),
            vec![json!({"hosts": ["a.com", "b.com"], "secretName": "t1"}), json!({"hosts": ["c.com"]})]
        );
    }
}
