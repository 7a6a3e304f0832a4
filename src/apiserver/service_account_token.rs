//! Service account tokens: the `serviceaccounts/token` subresource (a TokenRequest, what `kubectl create
//! token` and the kubelet's projected volumes ask for) mints a JWT signed with the cluster's service account
//! key, and authentication accepts such a token while it is unexpired and the service account (and the
//! object it is bound to) still exists with the UID it names. The claims are the apiserver's
//! (`pkg/serviceaccount/claims.go`): `iss` and the default audience
//! `https://kubernetes.default.svc.cluster.local`, `sub` `system:serviceaccount:NS:NAME`, `exp`/`iat`/`nbf`,
//! `jti`, and `kubernetes.io` with the namespace, the service account and the bound object. The key is an
//! ECDSA P-256 key from the cluster's seed (kubeadm makes such a key with `encryptionAlgorithm:
//! ECDSA-P256`), so the same seed signs the same tokens. Counterpart: `pkg/registry/core/serviceaccount/storage/token.go`
//! and `pkg/serviceaccount/jwt.go`.

use data_encoding::BASE64URL_NOPAD;
use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestStatus};

use crate::api::{Cause, Kind, Status};
use crate::sim::time::EPOCH_MS;
use crate::sim::{Rng, SimTime};

use super::cache::WatchCache;
use super::registry::k8s_time;

/// The issuer and default audience kubeadm gives the apiserver (`--service-account-issuer`).
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// A TokenRequest's default lifetime (`SetDefaults_TokenRequestSpec`).
pub const DEFAULT_EXPIRATION_S: i64 = 3600;
/// The shortest lifetime a TokenRequest may ask for (`ValidateTokenRequest`).
pub const MIN_EXPIRATION_S: i64 = 600;

/// The object a token is bound to (`kubectl create token --bound-object-kind=Pod …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub kind: String,
    pub name: String,
    pub uid: String,
}

/// What a token says, once its signature and lifetime are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub bound: Option<Bound>,
    pub expires: i64,
    /// The token's ID (`jti`).
    pub jti: String,
}

/// The cluster's service account signing key.
pub struct TokenSigner {
    key: SigningKey,
    key_id: String,
}

impl std::fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSigner").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

impl TokenSigner {
    /// The key the seeded stream `rng` gives.
    pub fn new(mut rng: Rng) -> TokenSigner {
        loop {
            let bytes: Vec<u8> = (0..4).flat_map(|_| rng.next_u64().to_be_bytes()).collect();
            // Nearly every 32 bytes are a valid scalar; the rare one that is not is drawn again.
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                let public = VerifyingKey::from(&key).to_encoded_point(false);
                let key_id = BASE64URL_NOPAD.encode(&Sha256::digest(public.as_bytes()));
                return TokenSigner { key, key_id };
            }
        }
    }

    /// A signed token for the service account `namespace/name` (UID `uid`), valid from `now` (Unix
    /// seconds) for `seconds`, for `audiences`, with its `jti`.
    #[allow(clippy::too_many_arguments)]
    pub fn mint(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
        bound: Option<&Bound>,
        audiences: &[String],
        now: i64,
        seconds: i64,
        jti: &str,
    ) -> String {
        let mut kubernetes = json!({"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}});
        if let Some(b) = bound {
            kubernetes[b.kind.to_ascii_lowercase()] = json!({"name": b.name, "uid": b.uid});
        }
        let claims = json!({
            "aud": audiences,
            "exp": now + seconds,
            "iat": now,
            "iss": ISSUER,
            "jti": jti,
            "kubernetes.io": kubernetes,
            "nbf": now,
            "sub": format!("system:serviceaccount:{namespace}:{name}"),
        });
        let header = json!({"alg": "ES256", "kid": self.key_id});
        let signed = format!(
            "{}.{}",
            BASE64URL_NOPAD.encode(header.to_string().as_bytes()),
            BASE64URL_NOPAD.encode(claims.to_string().as_bytes())
        );
        let signature: Signature = self.key.sign(signed.as_bytes());
        format!("{signed}.{}", BASE64URL_NOPAD.encode(&signature.to_bytes()))
    }

    /// The claims of a token this key signed, for the API's audience, in force at `now`; None for anything
    /// else (another key's token, a static token, a tampered or expired one).
    pub fn verify(&self, token: &str, now: i64) -> Option<Claims> {
        let mut parts = token.split('.');
        let (header, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let header: Value = serde_json::from_slice(&BASE64URL_NOPAD.decode(header.as_bytes()).ok()?).ok()?;
        if header["alg"] != "ES256" || header["kid"].as_str() != Some(self.key_id.as_str()) {
            return None;
        }
        let signature = Signature::from_slice(&BASE64URL_NOPAD.decode(signature.as_bytes()).ok()?).ok()?;
        let signed = &token[..token.rfind('.')?];
        VerifyingKey::from(&self.key).verify(signed.as_bytes(), &signature).ok()?;
        let claims: Value = serde_json::from_slice(&BASE64URL_NOPAD.decode(payload.as_bytes()).ok()?).ok()?;
        let audience_ok = claims["aud"].as_array().is_some_and(|a| a.iter().any(|x| x == ISSUER));
        let (expires, not_before) = (claims["exp"].as_i64()?, claims["nbf"].as_i64().unwrap_or(0));
        if claims["iss"] != ISSUER || !audience_ok || now >= expires || now < not_before {
            return None;
        }
        let k = &claims["kubernetes.io"];
        let bound = ["pod", "secret", "node"].iter().find_map(|kind| {
            let b = k.get(*kind)?;
            Some(Bound {
                kind: kind.to_string(),
                name: b["name"].as_str()?.to_string(),
                uid: b["uid"].as_str().unwrap_or("").to_string(),
            })
        });
        Some(Claims {
            namespace: k["namespace"].as_str()?.to_string(),
            name: k["serviceaccount"]["name"].as_str()?.to_string(),
            uid: k["serviceaccount"]["uid"].as_str().unwrap_or("").to_string(),
            bound,
            expires,
            jti: claims["jti"].as_str().unwrap_or("").to_string(),
        })
    }
}

/// Unix seconds at simulated time `now` (what a token's `iat` and `exp` count in).
pub fn unix_seconds(now: SimTime) -> i64 {
    ((EPOCH_MS + now.ms()) / 1000) as i64
}

/// The kind a token may be bound to, by its claim's name (`pod`, `secret`, `node`) or its kind.
pub fn bound_kind(name: &str) -> Option<Kind> {
    match name {
        "pod" | "Pod" => Some(Kind::Pod),
        "secret" | "Secret" => Some(Kind::Secret),
        "node" | "Node" => Some(Kind::Node),
        _ => None,
    }
}

/// A TokenRequest checked and defaulted as the token REST storage does it: its lifetime (3600 s unless
/// asked, never under 10 minutes), its audiences (the API's unless asked) and the bound object, which must
/// exist (its UID filled in when the request left it out). Returns the answer to fill, the bound object,
/// the audiences and the lifetime.
pub fn answer(
    mut request: TokenRequest,
    namespace: &str,
    name: &str,
    cache: &WatchCache,
) -> Result<(TokenRequest, Option<Bound>, Vec<String>, i64), Status> {
    let seconds = request.spec.expiration_seconds.unwrap_or(DEFAULT_EXPIRATION_S);
    let invalid = |detail: &str| {
        Status::invalid(
            "TokenRequest.authentication.k8s.io",
            "TokenRequest",
            name,
            vec![Cause::invalid("spec.expirationSeconds", &seconds.to_string(), detail)],
        )
    };
    if seconds < MIN_EXPIRATION_S {
        return Err(invalid("may not specify a duration less than 10 minutes"));
    }
    if seconds > 1 << 32 {
        return Err(invalid("may not specify a duration larger than 2^32 seconds"));
    }
    let audiences: Vec<String> = if request.spec.audiences.is_empty() {
        vec![super::access_review::API_AUDIENCE.to_string()]
    } else {
        request.spec.audiences.clone()
    };
    let mut bound = None;
    if let Some(reference) = request.spec.bound_object_ref.as_mut() {
        let kind_name = reference.kind.clone().unwrap_or_default();
        let Some(kind) = bound_kind(&kind_name) else {
            return Err(Status::bad_request(format!("cannot bind token for object of kind {kind_name}")));
        };
        let object_name = reference.name.clone().unwrap_or_default();
        let scope = (kind != Kind::Node).then_some(namespace);
        let Some(object) = cache.get(kind, scope, &object_name) else {
            return Err(Status::not_found(kind.info().resource, &object_name));
        };
        let uid = object.meta().uid.clone().unwrap_or_default();
        match reference.uid.as_deref() {
            Some(asked) if !asked.is_empty() && asked != uid => {
                return Err(Status::conflict(
                    kind.info().resource,
                    &object_name,
                    &format!("the UID in the bound object reference ({asked}) does not match the UID in record. The object might have been deleted and then recreated"),
                ))
            }
            _ => reference.uid = Some(uid.clone()),
        }
        bound = Some(Bound { kind: kind.name().to_string(), name: object_name, uid });
    }
    request.metadata.name = Some(name.to_string());
    request.metadata.namespace = Some(namespace.to_string());
    request.spec.audiences = audiences.clone();
    request.spec.expiration_seconds = Some(seconds);
    Ok((request, bound, audiences, seconds))
}

/// The answer's status: the token and when it expires (Unix seconds).
pub fn fill_status(request: &mut TokenRequest, token: String, expires: i64) {
    let at = SimTime((expires as u64 * 1000).saturating_sub(EPOCH_MS));
    request.status = Some(TokenRequestStatus { token, expiration_timestamp: k8s_time(at) });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> TokenSigner {
        TokenSigner::new(Rng::new(7))
    }

    #[test]
    fn a_minted_token_verifies_until_it_expires_and_names_its_service_account() {
        let s = signer();
        let token = s.mint("dev", "robot", "u-1", None, &[ISSUER.to_string()], 1_000, 3600, "j-1");
        let claims = s.verify(&token, 1_000).expect("valid");
        assert_eq!((claims.namespace.as_str(), claims.name.as_str(), claims.uid.as_str()), ("dev", "robot", "u-1"));
        assert_eq!(claims.expires, 4_600);
        assert!(s.verify(&token, 4_599).is_some());
        assert_eq!(s.verify(&token, 4_600), None, "expired");
        assert_eq!(s.verify(&token, 999), None, "not yet valid");
    }

    #[test]
    fn tampered_foreign_and_other_audience_tokens_are_refused() {
        let s = signer();
        let token = s.mint("dev", "robot", "u-1", None, &[ISSUER.to_string()], 1_000, 3600, "j-1");
        let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
        let forged = json!({"aud": [ISSUER], "exp": 9_999, "iat": 1_000, "iss": ISSUER, "nbf": 1_000,
            "kubernetes.io": {"namespace": "kube-system", "serviceaccount": {"name": "admin", "uid": "x"}}});
        parts[1] = BASE64URL_NOPAD.encode(forged.to_string().as_bytes());
        assert_eq!(s.verify(&parts.join("."), 1_000), None);
        assert_eq!(TokenSigner::new(Rng::new(8)).verify(&token, 1_000), None, "another cluster's key");
        let elsewhere = s.mint("dev", "robot", "u-1", None, &["vault".to_string()], 1_000, 3600, "j-2");
        assert_eq!(s.verify(&elsewhere, 1_000), None);
        assert_eq!(s.verify("not-a-jwt", 1_000), None);
    }

    #[test]
    fn the_same_seed_signs_the_same_token() {
        let a = signer().mint("dev", "robot", "u-1", None, &[ISSUER.to_string()], 1_000, 3600, "j-1");
        let b = signer().mint("dev", "robot", "u-1", None, &[ISSUER.to_string()], 1_000, 3600, "j-1");
        assert_eq!(a, b);
    }
}
