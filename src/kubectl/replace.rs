//! `kubectl replace -f -`: each object of the manifest replaces the stored one with a PUT (an object without
//! `metadata.resourceVersion` is first read, and the PUT carries the stored version, as kubectl's
//! `--overwrite` default does); the line is `pod/web replaced`. Also `kubectl edit`, which needs a terminal
//! editor that kubeglass does not have: it says so and points at the commands that change objects.

use crate::api::{ApiResponse, Verb};

use super::apply::{documents, placed, DocumentErrors};
use super::common::{self, DryRun};
use super::{Context, Failure};

pub async fn replace(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    let validation = common::field_validation(ctx)?;
    if ctx.args.has(&["force"]) {
        if dry != DryRun::None {
            return Err(common::error("--dry-run can not be used when --force is set"));
        }
        return Err(common::error(
            "kubeglass does not simulate replace --force; delete the object with kubectl delete, then create it",
        ));
    }
    common::check_output(ctx)?;
    let (docs, source) = documents(ctx, "replace")?;
    let mut errors = DocumentErrors::default();
    for doc in docs {
        let result = async {
            let (info, ns) = placed(ctx, &doc.value, &source).await?;
            let name = doc.value["metadata"]["name"].as_str().unwrap_or("").to_string();
            let mut body = doc.value.clone();
            if dry == DryRun::Client {
                return common::print_object(ctx, &body, "replaced", dry);
            }
            if body["metadata"]["resourceVersion"].as_str().is_none_or(str::is_empty) {
                let get = ctx.request(Verb::Get, info).namespace(Some(&ns)).name(&name);
                match ctx.api.call(get).await? {
                    ApiResponse::Object(live) => {
                        body["metadata"]["resourceVersion"] = live.resource_version().to_string().into();
                    }
                    ApiResponse::Error(s) => return Err(Failure(s.with_source("replacing", &source).kubectl_line())),
                    _ => {}
                }
            }
            let mut req = ctx.request(Verb::Update, info).namespace(Some(&ns)).name(&name);
            req.raw_body = Some(body);
            req.params.dry_run = dry == DryRun::Server;
            req.params.field_validation = validation;
            match ctx.api.call(req).await? {
                ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), "replaced", dry),
                ApiResponse::Error(s) => Err(Failure(s.with_source("replacing", &source).kubectl_line())),
                _ => Ok(()),
            }
        }
        .await;
        errors.record(ctx, result);
    }
    errors.finish()
}
