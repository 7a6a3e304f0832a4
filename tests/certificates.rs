//! CertificateSigningRequests through the simulated kubectl: the apiserver records who asked, validates the
//! request, usages, signer and duration with the v1.34 texts, and only the approval subresource adds a
//! decision — what `kubectl certificate approve|deny` sends (the real kubectl printed the same lines
//! against `kubeglass serve`).

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

/// A real PEM certificate request (`openssl req -new -subj "/CN=alice/O=dev"`, P-256), base64 as the API
/// carries it.
const REQUEST: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIWk1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVJhS2pBMVRnVkZET0F2WlQvYWlPY3FHZkcyVmtYaDFjbnR5eWIvCnFidG9JL3poNDBsV2NnQUZ4SGNBbG55RFFpbVkyOUJaMDdVNzhOSFZwME93M3p6Ym9BQXdDZ1lJS29aSXpqMEUKQXdJRFNBQXdSUUloQU53RkUxcEZVbzA0VUxQV2xZNEk0Y3J3c09LTkd0UllpMEJRVHhuWVl5VmtBaUJuSWdFZwpsSTIvVEI4N3VBdlY5NEVJb0ZJU0lnY1ZQaUdBNDFPSk16dkI5Zz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";

pub fn csr(name: &str, extra: &str) -> String {
    format!(
        "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: {name}\nspec:\n  request: {REQUEST}\n  signerName: kubernetes.io/kube-apiserver-client\n  expirationSeconds: 86400\n  usages:\n  - client auth\n{extra}"
    )
}

#[test]
fn a_csr_records_its_requester_and_is_approved_through_the_approval_subresource() {
    let mut c = Cluster::new_default(11);
    let (out, code) = apply(&mut c, &csr("alice", ""));
    assert_eq!((out.as_str(), code), ("certificatesigningrequest.certificates.k8s.io/alice created\n", Some(0)));
    let (out, _) = kubectl(&mut c, "get csr");
    assert_eq!(
        out,
        "NAME    AGE   SIGNERNAME                            REQUESTOR          REQUESTEDDURATION   CONDITION\nalice   0s    kubernetes.io/kube-apiserver-client   kubernetes-admin   24h                 Pending\n"
    );
    let (out, _) = kubectl(&mut c, "get csr alice -o jsonpath={.spec.username},{.spec.groups}");
    assert_eq!(out, "kubernetes-admin,[\"kubeadm:cluster-admins\",\"system:authenticated\"]");
    // An update of the object itself cannot decide it: only the approval subresource can.
    let (out, _) = kubectl(
        &mut c,
        r#"patch csr alice --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"Approved","status":"True"}]}}'"#,
    );
    assert!(out.contains("updates may not add a condition of type \"Approved\""), "{out}");
    for _ in 0..2 {
        let (out, code) = kubectl(&mut c, "certificate approve alice");
        assert_eq!((out.as_str(), code), ("certificatesigningrequest.certificates.k8s.io/alice approved\n", Some(0)));
    }
    let (out, _) = kubectl(&mut c, "get csr alice -o jsonpath={.status.conditions[*].reason}");
    assert_eq!(out, "KubectlApprove", "approving twice adds one condition");
    let (out, code) = kubectl(&mut c, "certificate deny alice");
    assert_eq!((out.as_str(), code), ("error: certificate signing request \"alice\" is already Approved\n", Some(1)));
    let (out, _) = kubectl(&mut c, "get csr alice --no-headers");
    assert!(out.trim_end().ends_with("Approved"), "{out}");
    let (out, code) = kubectl(&mut c, "certificate approve nope");
    assert_eq!(
        (out.as_str(), code),
        ("Error from server (NotFound): certificatesigningrequests.certificates.k8s.io \"nope\" not found\n", Some(1))
    );
    let (out, _) = kubectl(&mut c, "certificate deny");
    assert_eq!(out, "error: one or more CSRs must be specified as <name> or -f <filename>\n");
}

#[test]
fn a_csr_with_bad_usages_duration_signer_or_request_is_invalid() {
    let mut c = Cluster::new_default(12);
    let bad = csr("bob", "").replace("86400", "60").replace("- client auth", "- client auths");
    let (out, code) = apply(&mut c, &bad);
    assert_eq!(code, Some(1));
    assert!(out.starts_with("The CertificateSigningRequest \"bob\" is invalid: \n* spec.usages[0]: Unsupported value: \"client auths\": supported values: \"any\", \"cert sign\", \"client auth\""), "{out}");
    assert!(out.ends_with("* spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)\n"), "{out}");
    let unsigned = csr("carol", "").replace("kubernetes.io/kube-apiserver-client", "example/signer");
    let (out, _) = apply(&mut c, &unsigned);
    assert_eq!(out, "The CertificateSigningRequest \"carol\" is invalid: spec.signerName: Invalid value: \"example\": should be a domain with at least two segments separated by dots\n");
    let not_pem = csr("dave", "").replace(REQUEST, "aGVsbG8=");
    let (out, _) = apply(&mut c, &not_pem);
    assert_eq!(out, "The CertificateSigningRequest \"dave\" is invalid: spec.request: Invalid value: \"aGVsbG8=\": PEM block type must be CERTIFICATE REQUEST\n");
}
