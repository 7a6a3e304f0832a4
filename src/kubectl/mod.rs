//! kubectl over the simulated cluster: parses a command line, turns it into REST requests to the
//! apiserver (through the client [`Api`]), and prints what real kubectl v1.34 prints — tables, success
//! lines, and errors in `StandardErrorMessage`'s words. Each verb lives in its own file.

pub mod apply;
pub mod args;
mod attach;
pub mod auth;
pub mod autoscale;
mod certificate;
pub mod common;
pub mod complete;
pub mod config;
pub mod create;
mod debug;
pub mod delete;
pub mod describe;
pub mod discovery;
pub mod drain;
pub mod edit;
pub mod events;
pub mod exec;
pub mod explain;
#[rustfmt::skip]
mod flag_table;
mod diff;
pub mod expose;
pub mod flags;
pub mod get;
pub mod info;
pub mod kubeconfig;
pub mod label;
pub mod logs;
pub mod node;
pub mod patch;
pub mod printers;
pub mod raw;
pub mod replace;
pub mod rollout;
pub mod run;
pub mod scale;
pub mod set;
pub mod top;
pub mod wait;
pub mod watch;

use std::sync::Arc;

use crate::api::{lookup, ApiRequest, ApiResponse, Credentials, Object, ResourceInfo, Status, Verb};
use crate::client::{Api, ClientError};

use args::{split_words, Args};
use kubeconfig::KubeconfigFile;

/// Where kubectl's kubeconfig points: the control-plane node's advertise address.
pub const SERVER: &str = "192.168.56.10:6443";

/// What kubectl needs from its environment: the command line, stdin and the kubeconfig file (whose current
/// context gives the default namespace, and which `kubectl config` rewrites).
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    pub line: String,
    pub stdin: Option<String>,
    pub kubeconfig: KubeconfigFile,
}

/// A failure already rendered as kubectl prints it.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Failure {
        Failure(transport_line(&e))
    }
}

impl From<Status> for Failure {
    fn from(s: Status) -> Failure {
        Failure(s.kubectl_line())
    }
}

/// kubectl's line when the TCP connection fails.
pub fn transport_line(e: &ClientError) -> String {
    match e {
        ClientError::ConnectionRefused => {
            format!("The connection to the server {SERVER} was refused - did you specify the right host or port?")
        }
        ClientError::ConnectionReset => format!(
            "Unable to connect to the server: read tcp 192.168.56.10:52044->{SERVER}: read: connection reset by peer"
        ),
    }
}

/// Runs one kubectl command line; returns its exit code. Output goes to the process's terminal.
pub async fn run(api: Api, inv: Invocation) -> i32 {
    let words = match split_words(&inv.line) {
        Ok(w) => w,
        Err(e) => return fail(&api, &format!("error: {e}")),
    };
    let words: Vec<String> = match words.first().map(String::as_str) {
        Some("kubectl" | "k") => words[1..].to_vec(),
        _ => words,
    };
    let args = match Args::parse(&words) {
        Ok(a) => a,
        // diff's flag errors exit with 2: its 1 means "changes found".
        Err(e) if words.first().is_some_and(|w| w == "diff") => return fail(&api, &e) + 1,
        Err(e) => return fail(&api, &e),
    };
    let mut api = api;
    if let Some(user) = args.get(&["as"]) {
        api.impersonate = Some(user.to_string());
    }
    // With a client certificate in the kubeconfig, client-go presents it beside the token, and the
    // apiserver's authenticators try x509 first: the certificate's user is who asks.
    if let Some(token) = args.get(&["token"]).filter(|_| !matches!(api.credentials, Credentials::ClientCert { .. })) {
        api.credentials = Credentials::Token(token.to_string());
    }
    let namespace = inv.kubeconfig.read().namespace();
    let ctx = Context { api, args, namespace, stdin: inv.stdin.clone(), kubeconfig: inv.kubeconfig.clone() };
    let verb = ctx.args.positional.first().cloned().unwrap_or_default();
    if verb == "exec" {
        // exec ends with the exit code of the command it ran.
        return exec::exec(&ctx).await;
    }
    if verb == "diff" {
        return diff::diff(&ctx).await;
    }
    if verb == "run" {
        // An attached pod that failed ends kubectl with its exit code.
        return run::main(&ctx).await;
    }
    let watching = ctx.args.has(&["w", "watch", "watch-only"]);
    let result = match verb.as_str() {
        "get" if watching => watch::watch(&ctx).await,
        "get" => get::get(&ctx).await,
        "apply" => apply::apply(&ctx).await,
        "create" if ctx.args.get(&["f", "filename"]).is_some() => apply::create(&ctx).await,
        "create" => create::create(&ctx).await,
        "delete" => delete::delete(&ctx).await,
        "describe" => describe::describe(&ctx).await,
        "events" => events::events(&ctx).await,
        "rollout" => rollout::rollout(&ctx).await,
        "drain" => drain::drain(&ctx).await,
        "attach" => attach::attach(&ctx).await,
        "debug" => debug::debug(&ctx).await,
        "expose" => expose::expose(&ctx).await,
        "scale" => scale::scale(&ctx).await,
        "autoscale" => autoscale::autoscale(&ctx).await,
        "label" => label::label(&ctx).await,
        "annotate" => label::annotate(&ctx).await,
        "taint" => node::taint(&ctx).await,
        "cordon" => node::cordon(&ctx, true).await,
        "uncordon" => node::cordon(&ctx, false).await,
        "set" => set::set(&ctx).await,
        "logs" => logs::logs(&ctx).await,
        "top" => top::top(&ctx).await,
        "patch" => patch::patch(&ctx).await,
        "replace" => replace::replace(&ctx).await,
        "edit" => edit::edit(&ctx).await,
        "wait" => wait::wait(&ctx).await,
        "config" => config::config(&ctx),
        "auth" => auth::auth(&ctx).await,
        "certificate" => certificate::certificate(&ctx).await,
        "explain" => explain::explain(&ctx).await,
        "version" => info::version(&ctx).await,
        "cluster-info" => info::cluster_info(&ctx).await,
        "api-resources" => info::api_resources(&ctx).await,
        "api-versions" => info::api_versions(&ctx).await,
        "" => Err(Failure("kubectl controls the Kubernetes cluster manager.\n\nUse \"kubectl <command> --help\" for more information about a given command.".into())),
        other => Err(Failure(flags::unknown_command(other))),
    };
    match result {
        Ok(()) => 0,
        Err(Failure(line)) => fail(&ctx.api, &line),
    }
}

fn fail(api: &Api, line: &str) -> i32 {
    if line.is_empty() {
        return 1;
    }
    api.print(line);
    if !line.ends_with('\n') {
        api.print("\n");
    }
    1
}

/// One command's context.
pub struct Context {
    pub api: Api,
    pub args: Args,
    /// The current context's namespace (`default` when it names none).
    pub namespace: String,
    pub stdin: Option<String>,
    pub kubeconfig: KubeconfigFile,
}

impl Context {
    /// `-n` or the kubeconfig's namespace.
    pub fn namespace(&self) -> String {
        self.args.get(&["n", "namespace"]).unwrap_or(&self.namespace).to_string()
    }

    /// Whether `-n`/`--namespace` was given (kubectl's `EnforceNamespace`: the namespace is then written into
    /// objects built on the client side).
    pub fn namespace_given(&self) -> bool {
        self.args.get(&["n", "namespace"]).is_some()
    }

    pub fn all_namespaces(&self) -> bool {
        self.args.has(&["A", "all-namespaces"])
    }

    pub fn println(&self, line: &str) {
        self.api.print(line);
        self.api.print("\n");
    }

    /// Sends a request and turns failures into kubectl's lines.
    pub async fn call(&self, req: ApiRequest) -> Result<ApiResponse, Failure> {
        match self.api.call(req).await? {
            ApiResponse::Error(s) => Err(Failure::from(s)),
            r => Ok(r),
        }
    }

    pub fn request(&self, verb: Verb, info: &'static ResourceInfo) -> ApiRequest {
        ApiRequest::new(Credentials::Anonymous, verb, info)
    }
}

/// Resolves a resource name as typed (`po`, `deploy`, `deployments.apps`), or kubectl's error.
pub fn resource(name: &str) -> Result<&'static ResourceInfo, Failure> {
    lookup(name).ok_or_else(|| Failure(format!("error: the server doesn't have a resource type \"{name}\"")))
}

/// `deployment.apps/web`: how success lines and `-o name` name an object.
pub fn kind_name(obj: &Object) -> String {
    let info = obj.info();
    let kind = info.kind.name().to_ascii_lowercase();
    if info.group.is_empty() {
        format!("{kind}/{}", obj.name())
    } else {
        format!("{kind}.{}/{}", info.group, obj.name())
    }
}

pub fn object_of(resp: ApiResponse) -> Option<Arc<Object>> {
    match resp {
        ApiResponse::Object(o) => Some(o),
        _ => None,
    }
}
