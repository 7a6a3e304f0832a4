//! The reviews a component asks about someone else: TokenReview, SubjectAccessReview and
//! LocalSubjectAccessReview through the simulated kubectl, answered with the texts the real kubectl
//! printed against `kubeglass serve` (the same apiserver code), and the RBAC reasons of the real authorizer.

use kubeglass::cluster::Cluster;

fn create(c: &mut Cluster, manifest: &str, output: &str) -> (String, Option<i32>) {
    let r = c.kubectl(&format!("create -f - {output}"), Some(manifest.to_string()), 60_000);
    (r.output, r.exit)
}

const SAR: &str = "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: system:serviceaccount:kube-system:coredns\n  groups: [system:serviceaccounts]\n  resourceAttributes: {verb: list, resource: endpointslices, group: discovery.k8s.io}\n";

#[test]
fn a_subject_access_review_names_the_binding_that_allows_it() {
    let mut c = Cluster::new_default(1);
    let (out, code) = create(&mut c, SAR, "-o yaml");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.ends_with("status:\n  allowed: true\n  reason: 'RBAC: allowed by ClusterRoleBinding \"system:coredns\" of ClusterRole \"system:coredns\"\n    to ServiceAccount \"coredns/kube-system\"'\n"),
        "{out}"
    );
    let (out, _) = create(&mut c, SAR, "");
    assert_eq!(out, "subjectaccessreview.authorization.k8s.io/<unknown> created\n");
    // Nothing grants it: not allowed, and no reason.
    let denied = SAR.replace("verb: list", "verb: delete");
    let (out, _) = create(&mut c, &denied, "-o jsonpath={.status}");
    assert_eq!(out, "{\"allowed\":false}");
    // system:masters is allowed by the privileged-group shortcut, before RBAC: no reason either.
    let master = "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  groups: [system:masters]\n  resourceAttributes: {verb: delete, resource: nodes}\n";
    let (out, _) = create(&mut c, master, "-o jsonpath={.status}");
    assert_eq!(out, "{\"allowed\":true}");
    // Nothing stored: a review cannot be listed.
    let (out, code) = crate::kubectl(&mut c, "get subjectaccessreviews");
    assert_eq!(code, Some(1), "{out}");
}

#[test]
fn a_review_without_attributes_or_subject_is_invalid_with_both_causes() {
    let mut c = Cluster::new_default(2);
    let bad = "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec: {}\n";
    let (out, code) = create(&mut c, bad, "");
    assert_eq!(
        (out.as_str(), code),
        ("The request is invalid: \n* spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified\n* spec.user: Invalid value: \"\": at least one of user or group must be specified\n", Some(1))
    );
    let local = "apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nmetadata: {namespace: kube-system}\nspec:\n  user: alice\n  resourceAttributes: {verb: get, resource: pods, namespace: default}\n";
    let (out, _) = create(&mut c, local, "");
    assert_eq!(
        out,
        "The request is invalid: spec.resourceAttributes.namespace: Invalid value: \"default\": must match metadata.namespace\n"
    );
    let fixed = local.replace("namespace: default}", "namespace: kube-system}");
    let (out, code) = create(&mut c, &fixed, "-o jsonpath={.status.allowed}");
    assert_eq!((out.as_str(), code), ("false", Some(0)));
}

#[test]
fn a_token_review_says_who_holds_a_token_or_that_it_is_invalid() {
    let mut c = Cluster::new_default(3);
    let review =
        |token: &str| format!("apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {{token: {token}}}\n");
    let (out, _) = create(&mut c, &review("garbage"), "-o yaml");
    assert!(out.ends_with("status:\n  error: invalid bearer token\n  user: {}\n"), "{out}");
    // kube-proxy's service account token (the one its kubeconfig carries) is known to the authenticator.
    let (out, _) = create(&mut c, &review(kubeglass::proxy::TOKEN), "-o jsonpath={.status}");
    assert_eq!(
        out,
        "{\"audiences\":[\"https://kubernetes.default.svc.cluster.local\"],\"authenticated\":true,\"user\":{\"groups\":[\"system:serviceaccounts\",\"system:serviceaccounts:kube-system\",\"system:authenticated\"],\"username\":\"system:serviceaccount:kube-system:kube-proxy\"}}"
    );
    let (out, code) = create(&mut c, "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {}\n", "");
    assert_eq!(
        (out.as_str(), code),
        ("Error from server (BadRequest): error when creating \"STDIN\": token is required for TokenReview in authentication\n", Some(1))
    );
}

#[test]
fn a_token_from_create_token_is_reviewed_as_its_service_account_until_it_expires_or_the_account_goes() {
    let mut c = Cluster::new_default(1);
    let review =
        |token: &str| format!("apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {{token: {token}}}\n");
    assert_eq!(c.kubectl("create sa robot", None, 60_000).output, "serviceaccount/robot created\n");
    let minted = c.kubectl("create token robot --duration=20m", None, 60_000);
    assert_eq!(minted.exit, Some(0), "{}", minted.output);
    // On a terminal kubectl ends the token with a newline.
    let token = minted.output.strip_suffix('\n').expect("a line").to_string();
    assert_eq!(token.split('.').count(), 3, "a JWT: {token}");
    let (out, _) = create(&mut c, &review(&token), "-o jsonpath={.status.user.username}");
    assert_eq!(out, "system:serviceaccount:default:robot");
    // Twenty minutes later it is no longer taken.
    c.advance_ms(20 * 60_000);
    let (out, _) = create(&mut c, &review(&token), "-o jsonpath={.status.error}");
    assert_eq!(out, "invalid bearer token");
    let fresh = c.kubectl("create token robot -o jsonpath={.status.token}", None, 60_000).output;
    let (out, _) = create(&mut c, &review(&fresh), "-o jsonpath={.status.authenticated}");
    assert_eq!(out, "true");
    assert_eq!(c.kubectl("delete sa robot", None, 60_000).exit, Some(0));
    let (out, _) = create(&mut c, &review(&fresh), "-o jsonpath={.status.error}");
    assert_eq!(out, "invalid bearer token", "the account it names is gone");
    // kubectl's own checks come before any request.
    let checks = [
        (
            "create token",
            "error: exactly one NAME is required, got 0\nSee 'kubectl create token -h' for help and examples\n",
        ),
        ("create token robot --duration=1500ms", "error: --duration cannot be expressed in units less than seconds\n"),
        ("create token robot --duration=-1h", "error: --duration must be greater than or equal to 0\n"),
        (
            "create token robot --bound-object-name=p",
            "error: --bound-object-name can only be set if --bound-object-kind is provided\n",
        ),
        (
            "create token robot --bound-object-kind=Job --bound-object-name=p",
            "error: supported --bound-object-kind values are Node, Pod, Secret\n",
        ),
        (
            "create token robot --bound-object-kind=Pod",
            "error: --bound-object-name is required if --bound-object-kind is provided\n",
        ),
        ("create token gone", "error: failed to create token: serviceaccounts \"gone\" not found\n"),
    ];
    for (line, want) in checks {
        assert_eq!(c.kubectl(line, None, 60_000).output, want, "{line}");
    }
}
