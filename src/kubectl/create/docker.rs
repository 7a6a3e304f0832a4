//! `kubectl create secret docker-registry NAME --docker-username=… --docker-password=… [--docker-server=…]
//! [--docker-email=…]`: a `kubernetes.io/dockerconfigjson` Secret whose `.dockerconfigjson` is the JSON
//! kubectl's `create_secret_docker.go` writes (`{"auths":{server:{username,password[,email],auth}}}`).

use serde_json::json;

use crate::api::Kind;

use super::super::common;
use super::super::{Context, Failure};
use super::{base64, name, no_files, send};

/// Docker Hub's registry address, kubectl's default `--docker-server`.
const DOCKER_HUB: &str = "https://index.docker.io/v1/";

/// The config file's text, with the entries in the order Go's struct gives them.
fn docker_config(server: &str, username: &str, password: &str, email: &str) -> String {
    let auth = base64(format!("{username}:{password}").as_bytes());
    let text = |v: &str| serde_json::Value::from(v).to_string();
    let email = if email.is_empty() { String::new() } else { format!(",\"email\":{}", text(email)) };
    format!(
        "{{\"auths\":{{{}:{{\"username\":{},\"password\":{}{email},\"auth\":{}}}}}}}",
        text(server),
        text(username),
        text(password),
        text(&auth)
    )
}

pub(super) async fn docker_registry(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 3, "kubectl create secret docker-registry")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    no_files(ctx)?;
    let get = |flag: &str| ctx.args.get(&[flag]).unwrap_or("").to_string();
    let (username, password, email) = (get("docker-username"), get("docker-password"), get("docker-email"));
    let server = ctx.args.get(&["docker-server"]).unwrap_or(DOCKER_HUB).to_string();
    if username.is_empty() || password.is_empty() || server.is_empty() {
        return Err(common::error(
            "either --from-file or the combination of --docker-username, --docker-password and --docker-server is required",
        ));
    }
    let config = docker_config(&server, &username, &password, &email);
    let obj = json!({
        "apiVersion": "v1",
        "data": {".dockerconfigjson": base64(config.as_bytes())},
        "kind": "Secret",
        "metadata": {"name": name},
        "type": "kubernetes.io/dockerconfigjson",
    });
    send(ctx, Kind::Secret, obj, dry, Some("failed to create secret ")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_is_the_json_kubectl_writes() {
        assert_eq!(
            docker_config("r.io", "u", "p", ""),
            r#"{"auths":{"r.io":{"username":"u","password":"p","auth":"dTpw"}}}"#
        );
        assert_eq!(
            docker_config(DOCKER_HUB, "u", "p", "e@x.io"),
            r#"{"auths":{"https://index.docker.io/v1/":{"username":"u","password":"p","email":"e@x.io","auth":"dTpw"}}}"#
        );
    }
}
