//! A local OTLP/HTTP receiver on 127.0.0.1: it answers every export with 200 and keeps what
//! arrived, decoded as the collector decodes it (protobuf).

use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use tokio::net::TcpListener;

/// What arrived: the bodies posted to `/v1/traces` and `/v1/metrics`.
#[derive(Default)]
pub struct Received {
    pub traces: Vec<ExportTraceServiceRequest>,
    pub metrics: Vec<ExportMetricsServiceRequest>,
    /// Anything else: (path, content type).
    pub other: Vec<(String, String)>,
}

/// Starts the receiver; its address and what it keeps.
pub async fn start() -> (String, Arc<Mutex<Received>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Received::default()));
    let keep = received.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let keep = keep.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                    let keep = keep.clone();
                    async move {
                        let path = request.uri().path().to_owned();
                        let kind = request
                            .headers()
                            .get("content-type")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_owned();
                        let body = request.into_body().collect().await?.to_bytes();
                        let mut received = keep.lock().unwrap();
                        match (path.as_str(), kind.as_str()) {
                            ("/v1/traces", "application/x-protobuf") => received
                                .traces
                                .push(ExportTraceServiceRequest::decode(body).unwrap()),
                            ("/v1/metrics", "application/x-protobuf") => received
                                .metrics
                                .push(ExportMetricsServiceRequest::decode(body).unwrap()),
                            _ => received.other.push((path, kind)),
                        }
                        Ok::<_, hyper::Error>(
                            Response::builder()
                                .header("content-type", "application/x-protobuf")
                                .body(Full::new(Bytes::new()))
                                .unwrap(),
                        )
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (address, received)
}
