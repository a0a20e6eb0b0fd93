//! The farm's HTTP/1.1 client (hyper's, one fresh connection a request, as a page's first
//! request opens one; TLS with the farm's CA for an `https://` farm) and a reader of a
//! server-sent event stream.

use std::collections::VecDeque;

use http_body_util::{BodyExt as _, Empty};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper::{Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::{Error, Result};

/// TLS to the farm's port: the client configuration (the farm's CA) and the name the server's
/// certificate must carry.
#[derive(Clone)]
pub struct Tls {
    connector: tokio_rustls::TlsConnector,
    name: tokio_rustls::rustls::pki_types::ServerName<'static>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Tls {
    /// TLS with `config` to `host` (a DNS name or an IP address, without the port).
    pub fn new(config: std::sync::Arc<tokio_rustls::rustls::ClientConfig>, host: &str) -> Result<Tls> {
        let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned())
            .map_err(|e| Error::Http { path: host.to_owned(), reason: format!("not a server name: {e}") })?;
        Ok(Tls { connector: tokio_rustls::TlsConnector::from(config), name })
    }
}

/// Sends `GET path` to `addr` (`host:port`) with the bearer `token` on a new connection (TLS
/// with `tls`); the response's status and body.
async fn send(
    addr: &str,
    path: &str,
    token: &str,
    close: bool,
    tls: Option<&Tls>,
) -> Result<(StatusCode, Incoming, JoinHandle<()>)> {
    let http = |reason: String| Error::Http { path: path.to_owned(), reason };
    let tcp = TcpStream::connect(addr).await.map_err(|e| http(format!("connecting to {addr}: {e}")))?;
    tcp.set_nodelay(true).map_err(|e| http(format!("TCP_NODELAY: {e}")))?;
    match tls {
        None => send_on(TokioIo::new(tcp), addr, path, token, close).await,
        Some(tls) => {
            let stream = tls
                .connector
                .connect(tls.name.clone(), tcp)
                .await
                .map_err(|e| http(format!("TLS with {addr}: {e}")))?;
            send_on(TokioIo::new(stream), addr, path, token, close).await
        }
    }
}

/// [`send`] on a connection already open.
async fn send_on<IO>(
    io: IO,
    addr: &str,
    path: &str,
    token: &str,
    close: bool,
) -> Result<(StatusCode, Incoming, JoinHandle<()>)>
where
    IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let http = |reason: String| Error::Http { path: path.to_owned(), reason };
    let (mut sender, conn) = http1::handshake(io).await.map_err(|e| http(e.to_string()))?;
    let conn = tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(error = %e, "bench HTTP connection ended");
        }
    });
    let mut request =
        Request::get(path).header(header::HOST, addr).header(header::AUTHORIZATION, format!("Bearer {token}"));
    if close {
        request = request.header(header::CONNECTION, "close");
    }
    let request = request.body(Empty::<Bytes>::new()).map_err(|e| http(e.to_string()))?;
    let response = sender.send_request(request).await.map_err(|e| http(e.to_string()))?;
    Ok((response.status(), response.into_body(), conn))
}

/// A GET on a new connection (closed after it); the status and the whole body.
pub async fn get(addr: &str, path: &str, token: &str) -> Result<(StatusCode, Bytes)> {
    get_with(addr, path, token, None).await
}

/// [`get`], over TLS with `tls`.
pub async fn get_with(addr: &str, path: &str, token: &str, tls: Option<&Tls>) -> Result<(StatusCode, Bytes)> {
    let (status, body, _conn) = send(addr, path, token, true, tls).await?;
    let body = body.collect().await.map_err(|e| Error::Http { path: path.to_owned(), reason: e.to_string() })?;
    Ok((status, body.to_bytes()))
}

/// An open event stream (`text/event-stream`), read event by event.
#[derive(Debug)]
pub struct EventStream {
    path: String,
    body: Incoming,
    parser: SseParser,
    conn: JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

impl EventStream {
    /// Opens `GET path` as an event stream; a status other than 200 is an error.
    pub async fn open(addr: &str, path: &str, token: &str) -> Result<EventStream> {
        let (status, body, conn) = send(addr, path, token, false, None).await?;
        if status != StatusCode::OK {
            conn.abort();
            return Err(Error::Http { path: path.to_owned(), reason: status.to_string() });
        }
        Ok(EventStream { path: path.to_owned(), body, parser: SseParser::default(), conn })
    }

    /// The next event; `None` once the server ends the stream. Cancel-safe: an event already
    /// received stays queued when the future is dropped while waiting for more bytes.
    pub async fn next_event(&mut self) -> Result<Option<SseEvent>> {
        loop {
            if let Some(event) = self.parser.next_event() {
                return Ok(Some(event));
            }
            let Some(frame) = self.body.frame().await else { return Ok(None) };
            let frame = frame.map_err(|e| Error::Http { path: self.path.clone(), reason: e.to_string() })?;
            if let Ok(data) = frame.into_data() {
                self.parser.feed(&data);
            }
        }
    }
}

/// One server-sent event: its type (`message` when unnamed) and its data lines joined by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// The event-stream format (HTML's "server-sent events"): `field: value` lines, an empty line
/// ends an event; comments (`:` lines, the keep-alives) and events without data are dropped.
/// Lines end with LF or CRLF (a lone CR, which no server of ours sends, is not a line end).
#[derive(Debug, Default)]
pub struct SseParser {
    partial: Vec<u8>,
    event: String,
    data: Option<String>,
    ready: VecDeque<SseEvent>,
}

impl SseParser {
    /// Takes the next bytes of the stream, in any chunking.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(end) = self.partial[start..].iter().position(|&b| b == b'\n') {
            let line = &self.partial[start..start + end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = String::from_utf8_lossy(line).into_owned();
            self.line(&line);
            start += end + 1;
        }
        self.partial.drain(..start);
    }

    /// The oldest complete event not yet taken.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    fn line(&mut self, line: &str) {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            if let Some(data) = self.data.take() {
                let event = if event.is_empty() { "message".to_owned() } else { event };
                self.ready.push_back(SseEvent { event, data });
            }
            return;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "" => {} // a comment
            "event" => self.event = value.to_owned(),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {} // `id`, `retry` and unknown fields: nothing the benches read
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk);
            out.extend(std::iter::from_fn(|| parser.next_event()));
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent { event: event.into(), data: data.into() }
    }

    #[test]
    fn named_and_unnamed_events_with_multiline_data() {
        let got = events(&[b"event: runs\ndata: {\"seq\":1}\n\ndata: a\ndata:b\nid: 9\n\n"]);
        assert_eq!(got, [ev("runs", "{\"seq\":1}"), ev("message", "a\nb")]);
    }

    #[test]
    fn chunks_split_anywhere_and_crlf_line_ends() {
        let text =
            b"event: runs\r\ndata: {\"seq\":2}\r\n\r\n: keep-alive\r\n\r\nevent: runs\r\ndata: {\"seq\":3}\r\n\r\n";
        let whole = events(&[text]);
        assert_eq!(whole, [ev("runs", "{\"seq\":2}"), ev("runs", "{\"seq\":3}")]);
        for cut in 1..text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(events(&[a, b]), whole, "cut at {cut}");
        }
    }

    #[test]
    fn an_unfinished_event_waits_for_its_empty_line() {
        let mut parser = SseParser::default();
        parser.feed(b"event: runs\ndata: x\n");
        assert_eq!(parser.next_event(), None);
        parser.feed(b"\n");
        assert_eq!(parser.next_event(), Some(ev("runs", "x")));
        assert_eq!(parser.next_event(), None);
    }

    #[test]
    fn comments_and_data_less_events_are_dropped() {
        assert_eq!(events(&[b": ping\n\nevent: runs\n\nretry: 10\n\n"]), []);
    }
}
