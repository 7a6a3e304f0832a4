//! Authentication: turns a request's credentials into a user (name and groups), or refuses it with 401.
//! Counterpart: the apiserver's authenticator union (x509 client certificates, static/bootstrap bearer
//! tokens, service account tokens), with `system:authenticated` added to every authenticated user.

use std::collections::BTreeMap;

use crate::api::Credentials;

/// Who is asking, after authentication.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct UserInfo {
    pub name: String,
    /// A service account's UID (empty for users the cluster has no object for).
    pub uid: String,
    pub groups: Vec<String>,
    /// What else the authenticator knows (a service account token's `credential-id`, its bound pod).
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }
}

/// Known bearer tokens (user tokens and service account tokens) and the certificate authority's trust.
#[derive(Debug, Clone, Default)]
pub struct Authenticator {
    tokens: BTreeMap<String, UserInfo>,
}

impl Authenticator {
    pub fn add_token(&mut self, token: &str, name: &str, groups: &[String]) {
        self.tokens.insert(
            token.to_string(),
            UserInfo { name: name.to_string(), groups: groups.to_vec(), ..Default::default() },
        );
    }

    /// A service account token for `namespace/name` (what the token controller would mint).
    pub fn add_service_account(&mut self, token: &str, namespace: &str, name: &str) {
        let groups = vec!["system:serviceaccounts".to_string(), format!("system:serviceaccounts:{namespace}")];
        self.add_token(token, &format!("system:serviceaccount:{namespace}:{name}"), &groups);
    }

    /// The user behind the credentials, with `system:authenticated`; None means 401.
    pub fn authenticate(&self, credentials: &Credentials) -> Option<UserInfo> {
        let mut user = match credentials {
            Credentials::Token(t) => self.tokens.get(t)?.clone(),
            // Every client certificate in a simulated cluster is signed by the cluster CA (the simulation never
            // forges one), so its subject is trusted as is.
            Credentials::ClientCert { common_name, organizations } => {
                UserInfo { name: common_name.clone(), groups: organizations.clone(), ..Default::default() }
            }
            Credentials::Anonymous => return None,
        };
        if !user.in_group("system:authenticated") {
            user.groups.push("system:authenticated".to_string());
        }
        Some(user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_certificates_authenticate_and_unknown_tokens_do_not() {
        let mut a = Authenticator::default();
        a.add_token("jane-token", "jane", &["dev".to_string()]);
        let jane = a.authenticate(&Credentials::Token("jane-token".into())).unwrap();
        assert_eq!(jane.name, "jane");
        assert_eq!(jane.groups, vec!["dev", "system:authenticated"]);
        assert!(a.authenticate(&Credentials::Token("wrong".into())).is_none());
        assert!(a.authenticate(&Credentials::Anonymous).is_none());
        let admin = a
            .authenticate(&Credentials::ClientCert {
                common_name: "kubernetes-admin".into(),
                organizations: vec!["system:masters".into()],
            })
            .unwrap();
        assert!(admin.in_group("system:masters"));
    }

    #[test]
    fn service_account_tokens_carry_the_service_account_groups() {
        let mut a = Authenticator::default();
        a.add_service_account("t", "kube-system", "kube-proxy");
        let u = a.authenticate(&Credentials::Token("t".into())).unwrap();
        assert_eq!(u.name, "system:serviceaccount:kube-system:kube-proxy");
        assert!(u.in_group("system:serviceaccounts:kube-system"));
    }
}
