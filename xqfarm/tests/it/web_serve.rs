//! The web pages and the gRPC farm on one port: a browser's HTTP/1.1 requests reach the pages
//! and the JSON API, gRPC calls reach the role-guarded farm, and a path neither knows is 404.

use std::sync::Arc;

use coordinator::farm::Farm;
use coordinator::{SqliteStorage, SystemClock};
use proto::domain::RunFilter;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::served::Served;

/// One HTTP/1.1 request as a browser sends it; the status and the whole answer.
async fn http(addr: &str, request_line: &str, headers: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let req = format!("{request_line} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    (status, text)
}

#[tokio::test]
async fn pages_api_and_grpc_share_the_port() {
    let dir = tempfile::tempdir().expect("temp dir");
    let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("database");
    let farm = Arc::new(Farm::new(Arc::new(storage), Arc::new(SystemClock), None).expect("farm"));
    let config = web::WebConfig {
        access: proto::auth::Access::single_token("secret"),
        public: false,
        login_key: None,
        engines: worker::engines::EngineSet::empty(),
        play: web::play::PlayConfig::default(),
    };
    let pages = web::router(web::AppState::new(Arc::clone(&farm), config));
    let security = coordinator::server::Security::single_token("secret");
    let served = Served::start_with_pages(farm, security, pages).await;
    let addr = served.addr.to_string();

    let (status, page) = http(&addr, "GET /", "").await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("text/html") && page.contains("<html"), "{page}");
    let (status, body) = http(&addr, "GET /api/runs", "").await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("\"error\""), "{body}");
    let (status, body) = http(&addr, "GET /api/runs", "Authorization: Bearer secret\r\n").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"runs\":[]"), "{body}");
    let (status, body) = http(&addr, "GET /no/such/page", "").await;
    assert_eq!(status, 404, "{body}");

    // gRPC on the same port, with its own role guard.
    let client = proto::client::FarmClient::connect(
        &format!("http://{addr}"),
        None,
        "secret",
        proto::client::ClientConfig::default(),
    )
    .await
    .expect("gRPC connects");
    assert!(client.list_runs(RunFilter::default()).await.expect("ListRuns").is_empty());
    let wrong = proto::client::FarmClient::connect(
        &format!("http://{addr}"),
        None,
        "wrong",
        proto::client::ClientConfig::default(),
    )
    .await
    .expect("connects");
    assert!(wrong.list_runs(RunFilter::default()).await.is_err(), "the guard still refuses a wrong token");

    served.stop().await;
}
