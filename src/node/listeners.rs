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

/// The stock page's file time in the nginx image (what `Last-Modified` and the `ETag` are made of), and the
/// version its `Server` header names.
const NGINX_PAGE_MTIME: (&str, u64) = ("Wed, 16 Apr 2025 12:01:11 GMT", 1_744_804_871);
pub const NGINX_VERSION: &str = "1.27.5";
/// httpd's `index.html` has kept its 2007 file time.
const HTTPD_PAGE: (&str, &str) = ("Mon, 11 Jun 2007 18:53:14 GMT", "\"2d-432a5e4a73a80\"");
const HTTPD_SERVER: &str = "Apache/2.4.65 (Unix)";

/// A parsed HTTP/1.x request as a listener sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRequest {
    pub method: String,
    pub path: String,
    pub host: String,
    pub user_agent: String,
    /// Its bytes, head and body (`Content-Length`).
    pub len: usize,
}

/// The complete requests at the start of `data`, in order (HTTP/1.1 pipelining), and whether what follows
/// them is not HTTP. An incomplete request at the end is left for more bytes.
pub fn parse_requests(data: &[u8]) -> (Vec<RawRequest>, bool) {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&data[at..]) {
            Ok(httparse::Status::Complete(head)) => {
                let header = |name: &str| {
                    req.headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case(name))
                        .map(|h| String::from_utf8_lossy(h.value).into_owned())
                };
                let body = header("content-length").and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(0);
                if data.len() - at < head + body {
                    break;
                }
                out.push(RawRequest {
                    method: req.method.unwrap_or("GET").to_string(),
                    path: req.path.unwrap_or("/").to_string(),
                    host: header("host").unwrap_or_default(),
                    user_agent: header("user-agent").unwrap_or_default(),
                    len: head + body,
                });
                at += head + body;
            }
            Ok(httparse::Status::Partial) => break,
            Err(_) => return (out, true),
        }
    }
    (out, false)
}

/// The bytes an HTTP listener writes back for one request: the status line, the headers its server sends
/// (nginx's, httpd's, Go's `net/http` for the others) and, except for `HEAD`, `text`. `date` is the
/// `Date` header's value.
pub fn http_response(body: &Body, text: &str, head: bool, date: &str) -> String {
    let len = text.len();
    let headers = match body {
        Body::NginxWelcome => format!(
            "Server: nginx/{NGINX_VERSION}\r\nDate: {date}\r\nContent-Type: text/html\r\nContent-Length: {len}\r\n\
             Last-Modified: {}\r\nConnection: keep-alive\r\nETag: \"{:x}-{len:x}\"\r\nAccept-Ranges: bytes\r\n",
            NGINX_PAGE_MTIME.0, NGINX_PAGE_MTIME.1
        ),
        Body::ItWorks => format!(
            "Date: {date}\r\nServer: {HTTPD_SERVER}\r\nLast-Modified: {}\r\nETag: {}\r\nAccept-Ranges: bytes\r\n\
             Content-Length: {len}\r\nContent-Type: text/html\r\n",
            HTTPD_PAGE.0, HTTPD_PAGE.1
        ),
        Body::Whoami | Body::Ok | Body::Generic => {
            format!("Date: {date}\r\nContent-Length: {len}\r\nContent-Type: text/plain; charset=utf-8\r\n")
        }
    };
    let text = if head { "" } else { text };
    format!("HTTP/1.1 200 OK\r\n{headers}\r\n{text}")
}

/// What an HTTP listener writes back for bytes that are not an HTTP request, before it closes the
/// connection: nginx's error page, httpd's, or Go's plain answer.
pub fn bad_request(body: &Body, date: &str) -> String {
    match body {
        Body::NginxWelcome => {
            let page = format!(
                "<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n\
                 <hr><center>nginx/{NGINX_VERSION}</center>\r\n</body>\r\n</html>\r\n"
            );
            format!(
                "HTTP/1.1 400 Bad Request\r\nServer: nginx/{NGINX_VERSION}\r\nDate: {date}\r\nContent-Type: text/html\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            )
        }
        Body::ItWorks => {
            let page = "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>400 Bad Request</title>\n\
                        </head><body>\n<h1>Bad Request</h1>\n<p>Your browser sent a request that this server could not understand.<br />\n\
                        </p>\n</body></html>\n";
            format!(
                "HTTP/1.1 400 Bad Request\r\nDate: {date}\r\nServer: {HTTPD_SERVER}\r\nContent-Length: {}\r\n\
                 Connection: close\r\nContent-Type: text/html; charset=iso-8859-1\r\n\r\n{page}",
                page.len()
            )
        }
        Body::Whoami | Body::Ok | Body::Generic => {
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
                .to_string()
        }
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
    fn pipelined_requests_are_read_whole_and_the_rest_waits() {
        let get = "GET /a HTTP/1.1\r\nHost: x\r\nUser-Agent: curl/8.5.0\r\n\r\n";
        let post = "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
        let all = format!("{get}{post}GET /c HTTP/1.1\r\nHo");
        let (requests, garbage) = parse_requests(all.as_bytes());
        assert!(!garbage);
        let seen: Vec<_> = requests.iter().map(|r| (r.method.as_str(), r.path.as_str(), r.len)).collect();
        assert_eq!(seen, vec![("GET", "/a", get.len()), ("POST", "/b", post.len())]);
        assert_eq!(requests[0].user_agent, "curl/8.5.0");
        // A body not all there yet waits too.
        assert_eq!(parse_requests(&post.as_bytes()[..post.len() - 1]).0, Vec::new());
        assert!(parse_requests(b"\x16\x03\x01\x02\x00").1, "a TLS hello is not HTTP");
    }

    #[test]
    fn a_response_carries_its_servers_headers_and_no_body_for_head() {
        let date = "Mon, 01 Sep 2025 00:00:00 GMT";
        let page = http_response(&Body::NginxWelcome, NGINX_WELCOME, false, date);
        assert!(page.starts_with("HTTP/1.1 200 OK\r\nServer: nginx/1.27.5\r\nDate: Mon, 01 Sep 2025 00:00:00 GMT\r\n"));
        assert!(page.contains("\r\nContent-Length: 615\r\n") && page.ends_with(NGINX_WELCOME));
        let head = http_response(&Body::Ok, "OK", true, date);
        assert_eq!(
            head,
            "HTTP/1.1 200 OK\r\nDate: Mon, 01 Sep 2025 00:00:00 GMT\r\nContent-Length: 2\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\n"
        );
        let bad = bad_request(&Body::ItWorks, date);
        let (head, body) = bad.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("Content-Length: {}", body.len())), "{bad}");
    }

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
