//! The gRPC face of the farm: authenticate, convert (`proto::convert`, which also checks the
//! protocol version), call `Farm`, convert back. Nothing else happens here.
//!
//! `Farm` calls block on storage, so they run on Tokio's blocking pool: the runtime's few
//! threads keep serving connections meanwhile, and the SQLite writer finds many callers
//! waiting and commits them together.

use std::pin::Pin;
use std::sync::Arc;

use proto::domain::{
    LeaseRequest, OpeningSuiteSpec, RunFilter, RunId, RunSpec, SubmitRequest, VariantSpec, WorkerInfo,
};
use proto::pb;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::error::Error;
use crate::farm::Farm;

/// The service: a farm. Who may call what is decided in front of it, by
/// [`proto::auth::RoleGuard`] (see `server::serve`).
#[derive(Clone)]
pub struct FarmService {
    farm: Arc<Farm>,
}

impl std::fmt::Debug for FarmService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FarmService").finish_non_exhaustive()
    }
}

impl FarmService {
    pub fn new(farm: Arc<Farm>) -> FarmService {
        FarmService { farm }
    }

    pub fn into_server(self) -> pb::farm_server::FarmServer<FarmService> {
        pb::farm_server::FarmServer::new(self)
    }

    /// The role guard decided already; this only refuses a call that did not pass through
    /// it, so serving this service unguarded by mistake opens nothing.
    fn auth<T>(&self, req: &Request<T>) -> Result<(), Status> {
        match req.extensions().get::<proto::auth::Caller>() {
            Some(_) => Ok(()),
            None => Err(Status::unauthenticated("the call did not pass the coordinator's role guard")),
        }
    }

    /// Runs a blocking farm call on the blocking pool.
    async fn call<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Farm) -> crate::error::Result<T> + Send + 'static,
    {
        let farm = Arc::clone(&self.farm);
        match tokio::task::spawn_blocking(move || f(&farm)).await {
            Ok(result) => result.map_err(Status::from),
            Err(e) => {
                tracing::error!(error = %e, "a farm call failed to complete");
                Err(Status::internal(format!("the call failed to complete: {e}")))
            }
        }
    }
}

impl From<Error> for Status {
    fn from(e: Error) -> Status {
        let msg = e.to_string();
        match e {
            Error::RunNotFound(_)
            | Error::VariantNotFound(_)
            | Error::SuiteNotFound(_)
            | Error::LeaseNotFound(_)
            | Error::WorkerNotFound(_)
            | Error::GameNotFound(_)
            | Error::NetworkNotFound(_) => Status::not_found(msg),
            Error::InvalidSpec { .. } | Error::InvalidReport { .. } | Error::Unscored { .. } => {
                Status::invalid_argument(msg)
            }
            Error::LeaseNotOwned { .. } => Status::permission_denied(msg),
            Error::LeaseClosed(_) | Error::InvalidStateChange { .. } | Error::RulesVersion { .. } => {
                Status::failed_precondition(msg)
            }
            _ => {
                tracing::error!(error = %msg, "internal error");
                Status::internal(msg)
            }
        }
    }
}

fn convert<D, P>(p: P) -> Result<D, Status>
where
    D: TryFrom<P, Error = proto::Error>,
{
    D::try_from(p).map_err(Status::from)
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchRunResponse, Status>> + Send>>;
type NetworkStream = Pin<Box<dyn Stream<Item = Result<pb::NetworkChunk, Status>> + Send>>;

#[tonic::async_trait]
impl pb::farm_server::Farm for FarmService {
    async fn register(&self, req: Request<pb::RegisterRequest>) -> Result<Response<pb::RegisterResponse>, Status> {
        self.auth(&req)?;
        let info: WorkerInfo = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.register(&info)).await?.into()))
    }

    async fn lease(&self, req: Request<pb::LeaseRequest>) -> Result<Response<pb::LeaseResponse>, Status> {
        self.auth(&req)?;
        let lease: LeaseRequest = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.lease(&lease)).await?.into()))
    }

    async fn submit(&self, req: Request<pb::SubmitRequest>) -> Result<Response<pb::SubmitResponse>, Status> {
        self.auth(&req)?;
        let submit: SubmitRequest = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.submit(&submit)).await?.into()))
    }

    async fn create_run(&self, req: Request<pb::CreateRunRequest>) -> Result<Response<pb::CreateRunResponse>, Status> {
        self.auth(&req)?;
        let req = req.into_inner();
        let key = req.request_key.clone();
        let spec: RunSpec = convert(req)?;
        Ok(Response::new(self.call(move |farm| farm.create_run_once(&spec, &key)).await?.into()))
    }

    async fn list_runs(&self, req: Request<pb::ListRunsRequest>) -> Result<Response<pb::ListRunsResponse>, Status> {
        self.auth(&req)?;
        let filter: RunFilter = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.list_runs(&filter)).await?.into()))
    }

    async fn get_run(&self, req: Request<pb::GetRunRequest>) -> Result<Response<pb::GetRunResponse>, Status> {
        self.auth(&req)?;
        let id: RunId = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.get_run(id)).await?.into()))
    }

    async fn stop_run(&self, req: Request<pb::StopRunRequest>) -> Result<Response<pb::StopRunResponse>, Status> {
        self.auth(&req)?;
        let id: RunId = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.stop_run(id)).await?.into()))
    }

    type WatchRunStream = WatchStream;

    /// The run's status now, then after every change (statistics, state, export progress),
    /// until the run is over and all its games are exported.
    async fn watch_run(&self, req: Request<pb::WatchRunRequest>) -> Result<Response<WatchStream>, Status> {
        self.auth(&req)?;
        let id: RunId = convert(req.into_inner())?;
        let first = self.call(move |farm| farm.get_run(id)).await?;
        let farm = Arc::clone(&self.farm);
        let mut changes = farm.subscribe();
        let stream = async_stream(move |tx| async move {
            let mut last = first;
            if tx.send(Ok(last.clone().into())).await.is_err() {
                return;
            }
            while !farm.watch_is_over(&last) {
                if changes.changed().await.is_err() {
                    return;
                }
                let current = Arc::clone(&farm);
                let status = match tokio::task::spawn_blocking(move || current.get_run(id)).await {
                    Ok(status) => status,
                    Err(e) => {
                        let _ = tx.send(Err(Status::internal(format!("reading the run failed: {e}")))).await;
                        return;
                    }
                };
                match status {
                    Ok(status) if status != last => {
                        last = status;
                        if tx.send(Ok(last.clone().into())).await.is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let _ = tx.send(Err(Status::from(e))).await;
                        return;
                    }
                }
            }
        });
        Ok(Response::new(stream))
    }

    async fn add_variant(
        &self,
        req: Request<pb::AddVariantRequest>,
    ) -> Result<Response<pb::AddVariantResponse>, Status> {
        self.auth(&req)?;
        let spec: VariantSpec = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.add_variant(&spec)).await?.into()))
    }

    async fn add_openings(
        &self,
        req: Request<pb::AddOpeningsRequest>,
    ) -> Result<Response<pb::AddOpeningsResponse>, Status> {
        self.auth(&req)?;
        let spec: OpeningSuiteSpec = convert(req.into_inner())?;
        Ok(Response::new(self.call(move |farm| farm.add_openings(&spec)).await?.into()))
    }

    /// Puts the chunks together (each checked as it comes), then stores the file if the
    /// engine's reader accepts it.
    async fn add_network(
        &self,
        req: Request<tonic::Streaming<pb::NetworkChunk>>,
    ) -> Result<Response<pb::AddNetworkResponse>, Status> {
        self.auth(&req)?;
        let mut chunks = req.into_inner();
        let mut assembly = proto::convert::NetworkAssembly::default();
        while let Some(chunk) = chunks.message().await? {
            assembly.push(chunk).map_err(Status::from)?;
        }
        let bytes = assembly.finish().map_err(Status::from)?;
        let id = self.call(move |farm| farm.add_network(&bytes)).await?;
        Ok(Response::new(pb::AddNetworkResponse { sha256: id.to_string() }))
    }

    type FetchNetworkStream = NetworkStream;

    async fn fetch_network(&self, req: Request<pb::FetchNetworkRequest>) -> Result<Response<NetworkStream>, Status> {
        self.auth(&req)?;
        let req = req.into_inner();
        proto::check_version(req.protocol_version)?;
        let id: engine::nnue::NetworkId = req
            .sha256
            .parse()
            .map_err(|e: engine::nnue::BadNetworkId| Status::invalid_argument(format!("sha256: {e}")))?;
        let bytes = self.call(move |farm| farm.get_network(id)).await?;
        let chunks = proto::convert::network_chunks(&bytes).into_iter().map(Ok);
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks))))
    }
}

/// A stream fed by a spawned task through a small channel.
fn async_stream<F, Fut>(producer: F) -> WatchStream
where
    F: FnOnce(tokio::sync::mpsc::Sender<Result<pb::WatchRunResponse, Status>>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(producer(tx));
    Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))
}
