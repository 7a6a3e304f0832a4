//! What a simulated container listens on and what it answers an HTTP GET with: the network side of the
//! simulated workloads (`runtime` decides how long they run). The image decides, as in a real cluster where a
//! pod's `containerPort` is only informational:
//! - `nginx` (Docker Hub's library image): TCP 80, the stock welcome page; `bitnami/nginx` and
//!   `nginxinc/nginx-unprivileged`: TCP 8080, the same page.
//! - `httpd`: TCP 80, `<html><body><h1>It works!</h1></body></html>`.
//! - `traefik/whoami`: TCP 80, its request echo (`Hostname: <pod name>`, `IP: …`, the request line and
//!   headers), so a `curl` shows which pod answered.
//! - `redis`: TCP 6379; an HTTP request gets the connection closed (curl's `(52) Empty reply from server`).
//! - CoreDNS: UDP and TCP 53 (DNS), TCP 8080 `/health` and 8181 `/ready` (`OK`), 9153 metrics.
//! - The control plane's images (host network): kube-apiserver 6443, etcd 2379/2380, kube-controller-manager
//!   10257, kube-scheduler 10259, all HTTPS.
//! - Shell images (`busybox`, `alpine`, `ubuntu`, `debian`, `curlimages/curl`, …) and `pause` listen on
//!   nothing.
//! - Any other image listens on the TCP ports its container declares and answers every path with one line
//!   that names the pod: `kubeglass: <namespace>/<pod> (<pod IP>) answered on port <port>`.

/// How a listener answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// Plain HTTP with this body for every path.
    Http(Body),
    /// TLS (HTTPS) only.
    Https(TlsServer),
    /// Speaks something else: an HTTP request gets the connection closed without a reply.
    NotHttp,
    /// CoreDNS's DNS port.
    Dns,
}

/// Which body an HTTP listener sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    NginxWelcome,
    ItWorks,
    Whoami,
    Ok,
    /// The one-line answer of an image kubeglass knows nothing about.
    Generic,
}

/// Which HTTPS server it is (what it answers once TLS is accepted with `-k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsServer {
    ApiServer,
    Kubelet,
    Other,
}

/// One listening socket: port, lowercase protocol, what answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    pub port: u16,
    pub protocol: &'static str,
    pub service: Service,
}

fn tcp(port: u16, service: Service) -> Listener {
    Listener { port, protocol: "tcp", service }
}

/// The repository path of a normalized image without registry and tag: `library/nginx`, `traefik/whoami`.
fn repository(image: &str) -> String {
    let full = super::runtime::normalize(image);
    let name = full.split('@').next().unwrap_or(&full);
    let without_tag = match name.rsplit_once(':') {
        Some((n, tag)) if !tag.contains('/') => n,
        _ => name,
    };
    let mut parts: Vec<&str> = without_tag.split('/').collect();
    if parts.len() > 1 {
        parts.remove(0);
    }
    parts.join("/")
}

/// What a container of `image` listens on, given the TCP ports its spec declares.
pub fn listeners(image: &str, declared: &[u16]) -> Vec<Listener> {
    let repo = repository(image);
    let base = repo.rsplit('/').next().unwrap_or(&repo).to_string();
    match (repo.as_str(), base.as_str()) {
        ("library/nginx", _) => vec![tcp(80, Service::Http(Body::NginxWelcome))],
        ("bitnami/nginx" | "nginxinc/nginx-unprivileged", _) => vec![tcp(8080, Service::Http(Body::NginxWelcome))],
        ("library/httpd", _) => vec![tcp(80, Service::Http(Body::ItWorks))],
        ("traefik/whoami" | "containous/whoami", _) => vec![tcp(80, Service::Http(Body::Whoami))],
        (_, "redis") => vec![tcp(6379, Service::NotHttp)],
        (_, "coredns") => vec![
            Listener { port: 53, protocol: "udp", service: Service::Dns },
            Listener { port: 53, protocol: "tcp", service: Service::Dns },
            tcp(8080, Service::Http(Body::Ok)),
            tcp(8181, Service::Http(Body::Ok)),
            tcp(9153, Service::Http(Body::Generic)),
        ],
        (_, "kube-apiserver") => vec![tcp(6443, Service::Https(TlsServer::ApiServer))],
        (_, "etcd") => vec![tcp(2379, Service::Https(TlsServer::Other)), tcp(2380, Service::Https(TlsServer::Other))],
        (_, "kube-controller-manager") => vec![tcp(10257, Service::Https(TlsServer::Other))],
        (_, "kube-scheduler") => vec![tcp(10259, Service::Https(TlsServer::Other))],
        (_, "pause" | "busybox" | "alpine" | "ubuntu" | "debian" | "centos" | "fedora" | "bash" | "curl") => Vec::new(),
        _ => declared.iter().map(|p| tcp(*p, Service::Http(Body::Generic))).collect(),
    }
}

/// The stock `index.html` of the nginx image.
pub const NGINX_WELCOME: &str = "<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href=\"http://nginx.org/\">nginx.org</a>.<br/>
Commercial support is available at
<a href=\"http://nginx.com/\">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
";

/// Who answers and who asked, for the bodies that echo them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange<'a> {
    pub namespace: &'a str,
    pub pod: &'a str,
    pub pod_ip: &'a str,
    pub port: u16,
    /// The `Host` header curl sends (the URL's host, with `:port` when not 80).
    pub host: &'a str,
    pub path: &'a str,
    pub client: &'a str,
    /// The client's `User-Agent` header.
    pub user_agent: &'a str,
}

/// The body an HTTP listener sends for one request.
pub fn http_body(body: &Body, x: &Exchange) -> String {
    match body {
        Body::NginxWelcome => NGINX_WELCOME.to_string(),
        Body::ItWorks => "<html><body><h1>It works!</h1></body></html>\n".to_string(),
        Body::Ok => "OK".to_string(),
        Body::Whoami => format!(
            "Hostname: {}\nIP: 127.0.0.1\nIP: {}\nRemoteAddr: {}:{}\nGET {} HTTP/1.1\nHost: {}\nUser-Agent: {}\nAccept: */*\n\n",
            x.pod,
            x.pod_ip,
            x.client,
            client_port(x),
            x.path,
            x.host,
            x.user_agent
        ),
        Body::Generic => format!("kubeglass: {}/{} ({}) answered on port {}\n", x.namespace, x.pod, x.pod_ip, x.port),
    }
}

/// A stable ephemeral source port for the echo (Linux's range is 32768–60999).
fn client_port(x: &Exchange) -> u32 {
    let h = crate::sim::rng::fnv1a64(format!("{}{}{}", x.client, x.pod, x.path).as_bytes());
    32_768 + (h % 28_232) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_decides_what_listens_not_the_declared_ports() {
        assert_eq!(listeners("nginx:1.27", &[8080])[0].port, 80);
        assert_eq!(listeners("docker.io/library/nginx", &[]).len(), 1);
        assert_eq!(listeners("nginxinc/nginx-unprivileged:stable", &[])[0].port, 8080);
        assert_eq!(listeners("httpd:2.4", &[])[0].service, Service::Http(Body::ItWorks));
        assert!(listeners("busybox:1.36", &[80]).is_empty());
        assert!(listeners("registry.k8s.io/pause:3.10", &[]).is_empty());
        let generic = listeners("ghcr.io/acme/shop:v2", &[8080, 9090]);
        assert_eq!(generic.iter().map(|l| l.port).collect::<Vec<_>>(), [8080, 9090]);
        let dns = listeners("registry.k8s.io/coredns/coredns:v1.12.1", &[]);
        assert!(dns.iter().any(|l| l.port == 53 && l.protocol == "udp" && l.service == Service::Dns));
        assert_eq!(
            listeners("registry.k8s.io/kube-apiserver:v1.34.1", &[])[0].service,
            Service::Https(TlsServer::ApiServer)
        );
    }

    #[test]
    fn the_nginx_page_is_the_stock_one() {
        assert_eq!(NGINX_WELCOME.len(), 615, "the Content-Length nginx sends for it");
        assert!(NGINX_WELCOME.starts_with("<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>"));
    }

    #[test]
    fn whoami_and_generic_bodies_name_the_pod() {
        let x = Exchange {
            namespace: "default",
            pod: "web-7c5ddbdf54-x2x9k",
            pod_ip: "10.244.1.4",
            port: 80,
            host: "web",
            path: "/",
            client: "192.168.56.11",
            user_agent: "curl/8.5.0",
        };
        let who = http_body(&Body::Whoami, &x);
        assert!(who
            .starts_with("Hostname: web-7c5ddbdf54-x2x9k\nIP: 127.0.0.1\nIP: 10.244.1.4\nRemoteAddr: 192.168.56.11:"));
        assert!(who.contains("GET / HTTP/1.1\nHost: web\n"));
        assert_eq!(
            http_body(&Body::Generic, &x),
            "kubeglass: default/web-7c5ddbdf54-x2x9k (10.244.1.4) answered on port 80\n"
        );
    }
}
