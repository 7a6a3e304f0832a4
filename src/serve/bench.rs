//! `kubeglass bench serve`: what serving real clients costs. A cluster with one Deployment of N pods is
//! served (paused, so only requests move the clock) and a client measures over HTTPS, as kubectl would ask:
//! - `kubectl get pods` as the apiserver answers it: Table pages of 500 (`limit=500`, then `continue`), one
//!   connection kept alive; requests per second and the p50/p99 of a whole listing and of one page;
//! - a watch's delivery rate: `?watch=true&resourceVersion=0` streams an ADDED event per pod, timed from
//!   the request to the last event;
//! - the same page answered in the engine, without HTTP and TLS (the request made in the cluster, its Table
//!   rendered as serve renders it): what the HTTP layer adds per request.
//!
//! The wall clock is the caller's ([`Clock`]: the CLI passes it in, as it does to `serve::run`), so nothing
//! in the library reads real time itself.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use data_encoding::BASE64;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio_rustls::TlsConnector;

use super::{Options, Pace};
use crate::api::{ApiResponse, Credentials};
use crate::apiserver::rest::{self, HttpRequest, IncludeObject, Routed};
use crate::cluster::{Cluster, RemoteEvent};

/// The wall clock: time since some fixed moment.
pub type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

/// What kubectl sends for `get pods` (server-side printing, v1 first).
const TABLE_ACCEPT: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const PAGE: &str = "/api/v1/namespaces/default/pods";

/// The figures of one run.
pub struct Report {
    pub pods: usize,
    pub nodes: usize,
    pub listings: usize,
    pub pages_per_listing: usize,
    /// Page requests per second over HTTPS, one client, one connection.
    pub rps: f64,
    pub listing_p50: Duration,
    pub listing_p99: Duration,
    pub page_p50: Duration,
    pub page_p99: Duration,
    /// ADDED events per second of a watch from resourceVersion 0, and how many it delivered.
    pub watch_events: usize,
    pub watch_rate: f64,
    /// A page of the same listings answered in the engine (the request through the apiserver, the Table
    /// rendered), without HTTP: p50.
    pub engine_page_p50: Duration,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "serve: {} pods on {} nodes, `kubectl get pods` as Table pages of 500", self.pods, self.nodes)?;
        writeln!(
            f,
            "  get pods over HTTPS: {} listings of {} page(s): {:.0} requests/s; listing p50 {:.2?}, p99 {:.2?}; page p50 {:.2?}, p99 {:.2?}",
            self.listings,
            self.pages_per_listing,
            self.rps,
            self.listing_p50,
            self.listing_p99,
            self.page_p50,
            self.page_p99
        )?;
        writeln!(f, "  watch from resourceVersion 0: {} events at {:.0} events/s", self.watch_events, self.watch_rate)?;
        let http = self.page_p50.as_secs_f64();
        let engine = self.engine_page_p50.as_secs_f64();
        writeln!(
            f,
            "  one page in the engine: p50 {:.2?}; the HTTP layer (TLS, hyper, the engine's thread hop) adds {:.2?} per page ({:.0}%)",
            self.engine_page_p50,
            Duration::from_secs_f64((http - engine).max(0.0)),
            if http > 0.0 { (http - engine).max(0.0) / http * 100.0 } else { 0.0 }
        )
    }
}

/// The scenario served: `nodes` workers and a Deployment of `pods` replicas, given five simulated minutes.
fn scenario(pods: usize, nodes: usize) -> Result<crate::scenario::Scenario, String> {
    let mut text = String::from(
        "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: bench-serve}\nspec:\n  cluster:\n    nodes:\n",
    );
    for i in 1..=nodes {
        text.push_str(&format!("    - name: node{i:02}\n"));
    }
    text.push_str(&format!(
        "  steps:\n  - kubectl: create deployment big --image=nginx:1.27 --replicas={pods}\n  - wait: 5m\n"
    ));
    crate::scenario::parse(&text, "bench-serve").map_err(|e| e.to_string())
}

/// Runs the benchmark: `pods` pods, `listings` timed `get pods`.
pub fn run(pods: usize, listings: usize, clock: Clock) -> Result<Report, String> {
    let nodes = pods.div_ceil(100).max(3);
    let scenario = scenario(pods, nodes)?;
    let dir = std::env::temp_dir().join(format!("kubeglass-bench-serve-{}", std::process::id()));
    let kubeconfig = dir.join("kubeconfig");
    let options = Options {
        scenario: Some(scenario.clone()),
        port: 0,
        pace: Pace { speed: 1.0, paused: true },
        kubeconfig: Some(kubeconfig.clone()),
        prompt: false,
        ..Options::default()
    };
    // The server runs until the process ends.
    let started = clock();
    let serve_clock = Arc::clone(&clock);
    std::thread::spawn(move || {
        let _ = super::run(options, Box::new(move || serve_clock().as_secs_f64() * 1000.0));
    });
    let client = Client::from_kubeconfig(&kubeconfig, Arc::clone(&clock))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    // The listener is bound before the cluster is built; it answers once the cluster is there.
    runtime.block_on(client.ready())?;
    eprintln!("bench serve: {pods} pods on {nodes} nodes served after {:.1?}", clock() - started);
    let (listing_times, page_times, pages) = runtime.block_on(client.listings(listings))?;
    let (watch_events, watch_time) = runtime.block_on(client.watch_all(pods))?;
    let engine_times = engine_pages(&scenario, listings, &clock)?;
    let total: Duration = page_times.iter().sum();
    Ok(Report {
        pods,
        nodes,
        listings,
        pages_per_listing: pages,
        rps: page_times.len() as f64 / total.as_secs_f64().max(1e-9),
        listing_p50: percentile(&listing_times, 50),
        listing_p99: percentile(&listing_times, 99),
        page_p50: percentile(&page_times, 50),
        page_p99: percentile(&page_times, 99),
        watch_events,
        watch_rate: watch_events as f64 / watch_time.as_secs_f64().max(1e-9),
        engine_page_p50: percentile(&engine_times, 50),
    })
}

/// A continue token as a query value (base64's `+`, `/` and `=` escaped).
fn encoded(token: &str) -> String {
    form_urlencoded::byte_serialize(token.as_bytes()).collect()
}

fn percentile(times: &[Duration], p: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get((sorted.len() * p / 100).min(sorted.len().saturating_sub(1))).copied().unwrap_or_default()
}

/// The same listings answered in the engine, page by page: each request as serve routes it, made in the
/// cluster by an admin client, its Table rendered as serve renders it. Each page's time.
fn engine_pages(scenario: &crate::scenario::Scenario, count: usize, clock: &Clock) -> Result<Vec<Duration>, String> {
    let (mut cluster, _) = crate::scenario::runner::play(scenario);
    let admin = Credentials::ClientCert {
        common_name: super::ADMIN.into(),
        organizations: vec!["kubeadm:cluster-admins".into()],
    };
    let mut times = Vec::new();
    for _ in 0..count.max(1) {
        let mut token = String::new();
        loop {
            let query = if token.is_empty() {
                "limit=500".to_string()
            } else {
                format!("limit=500&continue={}", encoded(&token))
            };
            let http = HttpRequest { method: "GET", path: PAGE, query: &query, content_type: None, body: &[] };
            let Ok(Routed::Api(request)) = rest::route(&http) else {
                return Err("the pods path does not route".into());
            };
            let info = request.resource;
            let start = clock();
            let answer = engine_call(&mut cluster, admin.clone(), *request)?;
            let body = rest::table_answer(info, &answer, cluster.now(), IncludeObject::Metadata);
            std::hint::black_box(body.body.len());
            times.push(clock() - start);
            token = match answer {
                ApiResponse::List { more: Some(more), .. } => more.token,
                _ => break,
            };
        }
    }
    Ok(times)
}

fn engine_call(
    cluster: &mut Cluster,
    credentials: Credentials,
    request: crate::api::ApiRequest,
) -> Result<ApiResponse, String> {
    let id = cluster.remote_call("kubectl/v1.34.0", credentials, request);
    loop {
        for event in cluster.take_remote(id) {
            if let RemoteEvent::Answer { result, .. } = event {
                cluster.end_remote(id);
                return result.map_err(|e| format!("{e:?}"));
            }
        }
        if cluster.run_next_instant().is_none() {
            return Err("the engine stopped before answering".into());
        }
    }
}

/// An HTTPS client with the admin's certificate from the kubeconfig serve wrote.
struct Client {
    port: u16,
    connector: TlsConnector,
    clock: Clock,
}

impl Client {
    /// Waits (up to ten minutes: the cluster is built first) for the kubeconfig, then reads it.
    fn from_kubeconfig(path: &std::path::Path, clock: Clock) -> Result<Client, String> {
        let started = clock();
        let text = loop {
            if let Ok(text) = std::fs::read_to_string(path) {
                break text;
            }
            if clock() - started > Duration::from_secs(600) {
                return Err("serve wrote no kubeconfig".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{name}: ")).map(str::to_string))
                .ok_or_else(|| format!("the kubeconfig has no {name}"))
        };
        let port = field("server")?.rsplit(':').next().and_then(|p| p.parse().ok()).ok_or("no port in the server")?;
        let pem = |name: &str| -> Result<Vec<u8>, String> {
            BASE64.decode(field(name)?.as_bytes()).map_err(|e| format!("{name}: {e}"))
        };
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(&pem("certificate-authority-data")?) {
            roots.add(cert.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        }
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem("client-certificate-data")?)
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let key = PrivateKeyDer::from_pem_slice(&pem("client-key-data")?).map_err(|e| e.to_string())?;
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_client_auth_cert(certs, key)
            .map_err(|e| e.to_string())?;
        Ok(Client { port, connector: TlsConnector::from(Arc::new(config)), clock })
    }

    async fn connect(&self) -> Result<http1::SendRequest<Empty<Bytes>>, String> {
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.map_err(|e| e.to_string())?;
        let name = ServerName::try_from("127.0.0.1").map_err(|e| e.to_string())?;
        let tls = self.connector.connect(name, tcp).await.map_err(|e| e.to_string())?;
        let (sender, connection) = http1::handshake(TokioIo::new(tls)).await.map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        Ok(sender)
    }

    fn get(path_and_query: &str, accept: &str) -> Result<hyper::Request<Empty<Bytes>>, String> {
        hyper::Request::get(path_and_query)
            .header("host", "127.0.0.1")
            .header("accept", accept)
            .header("user-agent", "kubeglass-bench/serve")
            .body(Empty::new())
            .map_err(|e| e.to_string())
    }

    /// Waits for the server's first answer (`/version`).
    async fn ready(&self) -> Result<(), String> {
        let mut sender = self.connect().await?;
        let response =
            sender.send_request(Client::get("/version", "application/json")?).await.map_err(|e| e.to_string())?;
        response.into_body().collect().await.map_err(|e| e.to_string())?;
        Ok(())
    }

    /// `count` listings, each page after page until no `continue`: their times, each page's, and the pages
    /// of one listing.
    async fn listings(&self, count: usize) -> Result<(Vec<Duration>, Vec<Duration>, usize), String> {
        let mut sender = self.connect().await?;
        let (mut listings, mut pages, mut per_listing) = (Vec::new(), Vec::new(), 0);
        for _ in 0..count.max(1) {
            let start = (self.clock)();
            let mut token = String::new();
            let mut n = 0;
            loop {
                let query = if token.is_empty() {
                    "limit=500".to_string()
                } else {
                    format!("limit=500&continue={}", encoded(&token))
                };
                let page_start = (self.clock)();
                let response = sender
                    .send_request(Client::get(&format!("{PAGE}?{query}"), TABLE_ACCEPT)?)
                    .await
                    .map_err(|e| e.to_string())?;
                if response.status() != 200 {
                    return Err(format!("get pods answered {}", response.status()));
                }
                let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
                pages.push((self.clock)() - page_start);
                n += 1;
                let table: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
                token = table["metadata"]["continue"].as_str().unwrap_or("").to_string();
                if token.is_empty() {
                    break;
                }
            }
            per_listing = n;
            listings.push((self.clock)() - start);
        }
        Ok((listings, pages, per_listing))
    }

    /// A watch from resourceVersion 0 read until it has delivered `pods` events (or ten seconds of silence).
    async fn watch_all(&self, pods: usize) -> Result<(usize, Duration), String> {
        let mut sender = self.connect().await?;
        let start = (self.clock)();
        let request = Client::get(&format!("{PAGE}?watch=true&resourceVersion=0"), "application/json")?;
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let mut body = response.into_body();
        let (mut events, mut last) = (0, Duration::ZERO);
        while events < pods {
            let frame = match tokio::time::timeout(Duration::from_secs(10), body.frame()).await {
                Ok(Some(Ok(frame))) => frame,
                _ => break,
            };
            if let Some(data) = frame.data_ref() {
                events += data.iter().filter(|b| **b == b'\n').count();
                last = (self.clock)() - start;
            }
        }
        Ok((events, last))
    }
}
