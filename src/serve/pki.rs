//! The cluster's certificates as kubeadm lays them out (`/etc/kubernetes/pki`): a cluster CA (CN
//! `kubernetes`), kube-apiserver's serving certificate with kubeadm's SANs, and client certificates (the
//! admin's: CN `kubernetes-admin`, O `kubeadm:cluster-admins`; one per `--user NAME:GROUP`), and the
//! kubeconfig a real client reads them from. Made fresh for each `serve` with rcgen; the keys never leave
//! the files `serve` writes.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// A certificate and its key, PEM encoded for files and DER for the TLS server.
pub struct Pair {
    pub cert_pem: String,
    pub key_pem: String,
    pub cert_der: Vec<u8>,
    /// PKCS #8.
    pub key_der: Vec<u8>,
}

impl Pair {
    fn of(cert: &rcgen::Certificate, key: &KeyPair) -> Pair {
        Pair {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            cert_der: cert.der().to_vec(),
            key_der: key.serialize_der(),
        }
    }
}

/// A client certificate's subject: the user (CN) and groups (O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSubject {
    pub user: String,
    pub groups: Vec<String>,
}

/// The certificates one `serve` uses.
pub struct Pki {
    pub ca_pem: String,
    pub ca_der: Vec<u8>,
    pub serving: Pair,
    /// Client certificates by user, the admin's first.
    pub clients: Vec<(ClientSubject, Pair)>,
}

/// kube-apiserver's serving certificate names, as kubeadm's `certs apiserver` phase writes them.
pub fn serving_names(control_plane: &str, advertise: &str) -> Vec<String> {
    [
        control_plane,
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
        "10.96.0.1",
        advertise,
        "127.0.0.1",
        "localhost",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn name(cn: &str, orgs: &[String]) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    for o in orgs {
        dn.push(DnType::OrganizationName, o.as_str());
    }
    dn.push(DnType::CommonName, cn);
    dn
}

impl Pki {
    /// A new CA and the certificates signed by it: the serving certificate for `names`, and one client
    /// certificate per subject.
    pub fn generate(names: Vec<String>, clients: &[ClientSubject]) -> Result<Pki, String> {
        let err = |e: rcgen::Error| format!("generating certificates: {e}");
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        ca.distinguished_name = name("kubernetes", &[]);
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages =
            vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment, KeyUsagePurpose::KeyCertSign];
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().map_err(err)?).map_err(err)?;

        let mut serving = CertificateParams::new(names).map_err(err)?;
        serving.distinguished_name = name("kube-apiserver", &[]);
        serving.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().map_err(err)?;
        let cert = serving.signed_by(&key, &ca).map_err(err)?;
        let serving = Pair::of(&cert, &key);

        let mut out = Vec::new();
        for subject in clients {
            let mut p = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
            p.distinguished_name = name(&subject.user, &subject.groups);
            p.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
            p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
            let key = KeyPair::generate().map_err(err)?;
            let cert = p.signed_by(&key, &ca).map_err(err)?;
            out.push((subject.clone(), Pair::of(&cert, &key)));
        }
        Ok(Pki { ca_pem: ca.pem(), ca_der: ca.der().to_vec(), serving, clients: out })
    }

    /// The kubeconfig for `server` (`https://127.0.0.1:6443`): cluster `kubernetes`, a context
    /// `<user>@kubernetes` per client certificate (the admin's current) and per token user.
    pub fn kubeconfig(&self, server: &str, token_users: &[(String, String)]) -> String {
        let b64 = |s: &str| data_encoding::BASE64.encode(s.as_bytes());
        let mut users: Vec<(String, String)> = Vec::new();
        for (subject, pair) in &self.clients {
            let user = format!(
                "    client-certificate-data: {}\n    client-key-data: {}\n",
                b64(&pair.cert_pem),
                b64(&pair.key_pem)
            );
            users.push((subject.user.clone(), user));
        }
        for (user, token) in token_users {
            users.push((user.clone(), format!("    token: {token}\n")));
        }
        let mut out = format!(
            "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {}\n    server: {server}\n  name: kubernetes\ncontexts:\n",
            b64(&self.ca_pem)
        );
        for (user, _) in &users {
            out.push_str(&format!(
                "- context:\n    cluster: kubernetes\n    user: {user}\n  name: {user}@kubernetes\n"
            ));
        }
        let current = users.first().map(|(u, _)| u.as_str()).unwrap_or("kubernetes-admin");
        out.push_str(&format!("current-context: {current}@kubernetes\nkind: Config\npreferences: {{}}\nusers:\n"));
        for (user, body) in &users {
            out.push_str(&format!("- name: {user}\n  user:\n{body}"));
        }
        out
    }
}

/// The subject of a client certificate (DER): CN is the user, each O a group.
pub fn client_subject(der: &[u8]) -> Option<ClientSubject> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    let subject = cert.subject();
    let user = subject.iter_common_name().next()?.as_str().ok()?.to_string();
    let groups = subject.iter_organization().filter_map(|o| o.as_str().ok().map(str::to_string)).collect();
    Some(ClientSubject { user, groups })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_certificates_carry_the_user_and_groups_the_apiserver_reads() {
        let admin = ClientSubject { user: "kubernetes-admin".into(), groups: vec!["kubeadm:cluster-admins".into()] };
        let pki = Pki::generate(serving_names("controlplane", "192.168.56.10"), std::slice::from_ref(&admin)).unwrap();
        assert_eq!(client_subject(&pki.clients[0].1.cert_der), Some(admin));
        assert!(pki.clients[0].1.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        let config = pki.kubeconfig("https://127.0.0.1:6443", &[("alice".into(), "alice-token".into())]);
        assert!(config.contains("current-context: kubernetes-admin@kubernetes\n"), "{config}");
        assert!(config.contains("- name: alice\n  user:\n    token: alice-token\n"), "{config}");
    }
}
