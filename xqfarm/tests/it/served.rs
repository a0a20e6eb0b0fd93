//! A coordinator served in this test process on a loopback port, for the tests that talk gRPC to
//! a farm (`auth_tls.rs`, `client.rs`, `farm_e2e.rs`, `referee_grpc.rs`), and with the web pages
//! on the same port (`web_serve.rs`): one way to start it, and one way to stop it that fails the
//! test when the server ended with an error.

use std::net::SocketAddr;
use std::sync::Arc;

use coordinator::farm::Farm;
use coordinator::server::Security;
use coordinator::{MemoryStorage, SystemClock};

/// The server's own result: an error it ends with fails the test that stops it.
type ServerTask = tokio::task::JoinHandle<Result<(), tonic::transport::Error>>;

pub struct Served {
    pub farm: Arc<Farm>,
    pub addr: SocketAddr,
    /// `http://ADDR`.
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: ServerTask,
}

impl Served {
    /// A farm in memory (no Parquet), behind one bearer token.
    pub async fn in_memory(token: &str) -> Served {
        Served::in_memory_with(Security::single_token(token)).await
    }

    /// A farm in memory (no Parquet), with `security`.
    pub async fn in_memory_with(security: Security) -> Served {
        let farm = Farm::new(Arc::new(MemoryStorage::new()), Arc::new(SystemClock), None).expect("farm");
        Served::start(Arc::new(farm), security).await
    }

    /// Serves `farm` with `security`.
    pub async fn start(farm: Arc<Farm>, security: Security) -> Served {
        Served::start_with_pages(farm, security, axum::Router::new()).await
    }

    /// Serves `farm` with `security`, and `pages` (the web's router) on the same port.
    pub async fn start_with_pages(farm: Arc<Farm>, security: Security, pages: axum::Router) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server_farm = Arc::clone(&farm);
        let task = tokio::spawn(async move {
            coordinator::server::serve_routes(listener, server_farm, security, pages, async {
                let _ = stopped.await;
            })
            .await
        });
        Served { farm, addr, url: format!("http://{addr}"), stop: Some(stop), task }
    }

    /// Ends the server at once: a graceful stop would wait for the streams of a frozen client.
    pub fn abort(self) {
        self.task.abort();
    }

    /// Stops the server gracefully; it must end without an error.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let served = (&mut self.task).await.expect("the server task ends without a panic");
        served.expect("the coordinator serves until it is stopped, without an error");
    }
}
