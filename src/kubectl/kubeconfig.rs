//! The kubeconfig file on the person's machine, as kubeadm writes it (`/etc/kubernetes/admin.conf`): one
//! cluster `kubernetes`, the user `kubernetes-admin` with its client certificate and the context
//! `kubernetes-admin@kubernetes`, plus one user (with its bearer token) and one context `<user>@kubernetes`
//! for every user the cluster was configured with.
//!
//! How changes reach the cluster: the file is a shared handle ([`KubeconfigFile`]). The [`crate::Cluster`]
//! owns it and hands a clone to every kubectl process in its [`super::Invocation`]; `kubectl config
//! use-context` and `set-context` write to it exactly as real kubectl rewrites the file, and the next command
//! (or the cluster, asking which user and namespace are current) reads the new content. No message travels:
//! the file is local to the person's machine, not part of the simulated cluster.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{json, Value};

/// The cluster kubeadm names in its kubeconfig files.
pub const CLUSTER: &str = "kubernetes";
/// kubeadm's admin user.
pub const ADMIN: &str = "kubernetes-admin";

/// How a user authenticates, as far as `kubectl config view` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    ClientCertificate,
    Token,
}

/// One context: which cluster, which user, and the namespace commands default to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeContext {
    pub cluster: String,
    pub user: String,
    pub namespace: Option<String>,
}

/// The content of the kubeconfig file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubeconfig {
    pub current_context: String,
    /// Cluster name → server URL.
    pub clusters: BTreeMap<String, String>,
    pub contexts: BTreeMap<String, KubeContext>,
    pub users: BTreeMap<String, Credential>,
}

impl Kubeconfig {
    /// kubeadm's admin.conf for `server`, plus a token user and a context for each of `users`.
    pub fn kubeadm(server: &str, users: &[String]) -> Kubeconfig {
        let mut k = Kubeconfig {
            current_context: context_name(ADMIN),
            clusters: BTreeMap::from([(CLUSTER.to_string(), format!("https://{server}"))]),
            contexts: BTreeMap::new(),
            users: BTreeMap::from([(ADMIN.to_string(), Credential::ClientCertificate)]),
        };
        k.contexts.insert(context_name(ADMIN), KubeContext::for_user(ADMIN));
        for u in users {
            k.users.insert(u.clone(), Credential::Token);
            k.contexts.insert(context_name(u), KubeContext::for_user(u));
        }
        k
    }

    pub fn current(&self) -> Option<&KubeContext> {
        self.contexts.get(&self.current_context)
    }

    /// The user of the current context (the admin when the current context is missing).
    pub fn user(&self) -> String {
        self.current().map_or_else(|| ADMIN.to_string(), |c| c.user.clone())
    }

    /// The namespace of the current context, `default` when it sets none.
    pub fn namespace(&self) -> String {
        self.current().and_then(|c| c.namespace.clone()).filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into())
    }

    /// `kubectl config view` (secrets shortened to `DATA+OMITTED` and `REDACTED`) as JSON; `minify` keeps only
    /// what the current context uses.
    pub fn view(&self, minify: bool) -> Value {
        let ctx = self.current().cloned();
        let keep_context = |name: &str| !minify || name == self.current_context;
        let keep_cluster = |name: &str| !minify || ctx.as_ref().is_some_and(|c| c.cluster == name);
        let keep_user = |name: &str| !minify || ctx.as_ref().is_some_and(|c| c.user == name);
        let clusters: Vec<Value> = self
            .clusters
            .iter()
            .filter(|(n, _)| keep_cluster(n))
            .map(|(name, server)| {
                json!({"cluster": {"certificate-authority-data": "DATA+OMITTED", "server": server}, "name": name})
            })
            .collect();
        let contexts: Vec<Value> = self
            .contexts
            .iter()
            .filter(|(n, _)| keep_context(n))
            .map(|(name, c)| {
                let mut context = json!({"cluster": c.cluster, "user": c.user});
                if let Some(ns) = c.namespace.as_ref().filter(|n| !n.is_empty()) {
                    context["namespace"] = json!(ns);
                }
                json!({"context": context, "name": name})
            })
            .collect();
        let users: Vec<Value> = self
            .users
            .iter()
            .filter(|(n, _)| keep_user(n))
            .map(|(name, cred)| {
                let user = match cred {
                    Credential::ClientCertificate => {
                        json!({"client-certificate-data": "DATA+OMITTED", "client-key-data": "DATA+OMITTED"})
                    }
                    Credential::Token => json!({"token": "REDACTED"}),
                };
                json!({"name": name, "user": user})
            })
            .collect();
        json!({
            "apiVersion": "v1",
            "clusters": clusters,
            "contexts": contexts,
            "current-context": self.current_context,
            "kind": "Config",
            "users": users,
        })
    }
}

impl KubeContext {
    fn for_user(user: &str) -> KubeContext {
        KubeContext { cluster: CLUSTER.to_string(), user: user.to_string(), namespace: None }
    }
}

/// `jane@kubernetes`: the context kubeadm-style files name after a user.
pub fn context_name(user: &str) -> String {
    format!("{user}@{CLUSTER}")
}

/// The kubeconfig file, shared between the cluster and the kubectl processes that read and write it.
#[derive(Debug, Clone)]
pub struct KubeconfigFile(Rc<RefCell<Kubeconfig>>);

impl KubeconfigFile {
    pub fn new(config: Kubeconfig) -> KubeconfigFile {
        KubeconfigFile(Rc::new(RefCell::new(config)))
    }

    /// A copy of the current content (what a command reads when it starts).
    pub fn read(&self) -> Kubeconfig {
        self.0.borrow().clone()
    }

    /// Rewrites the file.
    pub fn write(&self, config: Kubeconfig) {
        *self.0.borrow_mut() = config;
    }
}

impl Default for KubeconfigFile {
    /// An admin-only kubeconfig for the default server.
    fn default() -> KubeconfigFile {
        KubeconfigFile::new(Kubeconfig::kubeadm(super::SERVER, &[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeadm_files_have_the_admin_context_and_one_context_per_user() {
        let k = Kubeconfig::kubeadm("192.168.56.10:6443", &["jane".to_string()]);
        assert_eq!(k.current_context, "kubernetes-admin@kubernetes");
        assert_eq!(k.user(), "kubernetes-admin");
        assert_eq!(k.namespace(), "default");
        assert_eq!(k.contexts["jane@kubernetes"].user, "jane");
        assert_eq!(k.users["jane"], Credential::Token);
    }

    #[test]
    fn a_written_file_is_what_the_next_reader_sees() {
        let file = KubeconfigFile::default();
        let other = file.clone();
        let mut k = file.read();
        if let Some(c) = k.contexts.get_mut("kubernetes-admin@kubernetes") {
            c.namespace = Some("dev".into());
        }
        file.write(k);
        assert_eq!(other.read().namespace(), "dev");
    }
}
