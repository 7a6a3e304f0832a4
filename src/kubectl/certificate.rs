//! `kubectl certificate approve|deny NAME… [--force]`: for each CertificateSigningRequest, read it, add the
//! Approved (or Denied) condition kubectl's `certificates.go` adds (reason `KubectlApprove`, its message,
//! `lastUpdateTime` now) and send it to the `approval` subresource; an existing decision of the other kind
//! is an error, one of the same kind is left as it is (sent again only with `--force`). Prints
//! `certificatesigningrequest.certificates.k8s.io/NAME approved`.

use k8s_openapi::api::certificates::v1::CertificateSigningRequestCondition;

use crate::api::{lookup, ApiResponse, Object, Verb};
use crate::apiserver::registry::k8s_time;

use super::apply::DocumentErrors;
use super::{Context, Failure};

pub async fn certificate(ctx: &Context) -> Result<(), Failure> {
    let (decision, other, reason, message, done) = match ctx.args.positional.get(1).map(String::as_str) {
        Some("approve") => (
            "Approved",
            "Denied",
            "KubectlApprove",
            "This CSR was approved by kubectl certificate approve.",
            "approved",
        ),
        Some("deny") => {
            ("Denied", "Approved", "KubectlDeny", "This CSR was denied by kubectl certificate deny.", "denied")
        }
        Some(other) => return Err(Failure(super::flags::unknown_command(&format!("certificate {other}")))),
        None => return Err(Failure("Modify certificate resources.".into())),
    };
    let names = ctx.args.operands(2);
    if names.is_empty() {
        return Err(super::common::error("one or more CSRs must be specified as <name> or -f <filename>"));
    }
    let info = lookup("certificatesigningrequests").expect("CSRs are served");
    let force = ctx.args.has(&["force"]);
    let mut errors = DocumentErrors::default();
    for name in names {
        let result = async {
            let read = ctx.api.call(ctx.request(Verb::Get, info).name(name)).await?;
            let obj = match read {
                ApiResponse::Object(o) => o,
                ApiResponse::Error(s) => return Err(Failure(s.kubectl_line())),
                _ => return Ok(()),
            };
            let Object::CertificateSigningRequest(csr) = obj.as_ref() else { return Ok(()) };
            let mut csr = csr.clone();
            let conditions = csr.status.get_or_insert_with(Default::default).conditions.get_or_insert_with(Vec::new);
            if conditions.iter().any(|c| c.type_ == other) {
                return Err(super::common::error(format!("certificate signing request {name:?} is already {other}")));
            }
            let has = conditions.iter().any(|c| c.type_ == decision);
            if !has {
                conditions.push(CertificateSigningRequestCondition {
                    type_: decision.into(),
                    status: "True".into(),
                    reason: Some(reason.into()),
                    message: Some(message.into()),
                    last_update_time: Some(k8s_time(ctx.api.now())),
                    last_transition_time: None,
                });
            }
            if !has || force {
                let req = ctx
                    .request(Verb::Update, info)
                    .name(name)
                    .subresource("approval")
                    .body(Object::CertificateSigningRequest(csr));
                if let ApiResponse::Error(s) = ctx.api.call(req).await? {
                    return Err(Failure(s.kubectl_line()));
                }
            }
            ctx.println(&format!("certificatesigningrequest.certificates.k8s.io/{name} {done}"));
            Ok(())
        }
        .await;
        errors.record(ctx, result);
    }
    errors.finish()
}
