//! [`Proxy`]: a TCP proxy on `127.0.0.1` in front of a server, for outage tests. It runs on a
//! thread and runtime of its own, so it works the same from synchronous tests, asynchronous
//! tests and the runtimes conformance cases make for themselves.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

/// A TCP proxy on `127.0.0.1` in front of `upstream`. Connections to [`addr`](Proxy::addr)
/// are forwarded both ways until the proxy is told otherwise:
///
/// - [`drop_connections`](Proxy::drop_connections) closes every connection it holds now;
/// - [`refuse_for`](Proxy::refuse_for) closes new connections as soon as they arrive, for a
///   while;
/// - [`block`](Proxy::block) holds new connections without forwarding them (a server that does
///   not answer) until [`unblock`](Proxy::unblock);
/// - [`cut_after`](Proxy::cut_after) forwards the next request that contains some bytes, then
///   closes the client's side before any reply comes back, while the server's side is drained
///   (a commit whose acknowledgement is lost).
///
/// Dropping it closes everything.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    upstream: SocketAddr,
    rules: Mutex<Rules>,
    /// Bumped by `drop_connections`, and whenever `block` changes: connections watch it.
    control: watch::Sender<Control>,
    accepted: AtomicUsize,
    open: AtomicUsize,
}

#[derive(Debug, Default)]
struct Rules {
    refuse_until: Option<Instant>,
    cut_after: Option<Vec<u8>>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Control {
    /// Connections accepted before the last `drop_connections` are closed.
    generation: u64,
    blocked: bool,
}

impl Proxy {
    /// A proxy in front of `upstream`, listening on a free port of `127.0.0.1`.
    ///
    /// # Panics
    ///
    /// When it cannot listen.
    pub fn new(upstream: SocketAddr) -> Proxy {
        let listener = std::net::TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .expect("the proxy listens on 127.0.0.1");
        let addr = listener.local_addr().expect("the proxy's address");
        let (control, _) = watch::channel(Control::default());
        let shared = Arc::new(Shared {
            upstream,
            rules: Mutex::new(Rules::default()),
            control,
            accepted: AtomicUsize::new(0),
            open: AtomicUsize::new(0),
        });
        let (stop, stopped) = oneshot::channel();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("pg-server-proxy".into())
            .spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a tokio runtime")
                    .block_on(serve(listener, serving, stopped));
            })
            .expect("the proxy's thread");
        Proxy {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `url` (a `postgres://` URL of the upstream server) with its host and port replaced by
    /// the proxy's.
    pub fn url(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let user = authority
            .rsplit_once('@')
            .map(|(user, _)| format!("{user}@"))
            .unwrap_or_default();
        format!("{scheme}://{user}{}{tail}", self.addr)
    }

    /// Closes every connection it holds, now.
    pub fn drop_connections(&self) {
        self.shared.control.send_modify(|c| c.generation += 1);
    }

    /// Closes new connections as soon as they arrive, for `duration`.
    pub fn refuse_for(&self, duration: Duration) {
        self.rules().refuse_until = Some(Instant::now() + duration);
    }

    /// Holds new connections, forwarding nothing, until [`unblock`](Self::unblock). Connections
    /// already forwarded go on.
    pub fn block(&self) {
        self.shared.control.send_modify(|c| c.blocked = true);
    }

    /// Forwards the connections held since [`block`](Self::block), and the new ones again.
    pub fn unblock(&self) {
        self.shared.control.send_modify(|c| c.blocked = false);
    }

    /// Forwards the next chunk a client sends that contains `bytes` (`b"COMMIT"`), then closes
    /// that connection to the client at once: the server gets the request and answers it (its
    /// answers are read and thrown away), the client never gets the reply. Once.
    pub fn cut_after(&self, bytes: &[u8]) {
        self.rules().cut_after = Some(bytes.to_vec());
    }

    /// How many connections it has accepted.
    pub fn accepted(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// How many connections it forwards now.
    pub fn open(&self) -> usize {
        self.shared.open.load(Ordering::SeqCst)
    }

    fn rules(&self) -> std::sync::MutexGuard<'_, Rules> {
        self.shared.rules()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn rules(&self) -> std::sync::MutexGuard<'_, Rules> {
        self.rules.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn refusing(&self) -> bool {
        self.rules()
            .refuse_until
            .is_some_and(|until| Instant::now() < until)
    }

    /// Whether `chunk` is the one to cut after (and if so, the rule is spent).
    fn cuts(&self, chunk: &[u8]) -> bool {
        let mut rules = self.rules();
        let hit = rules.cut_after.as_deref().is_some_and(|bytes| {
            !bytes.is_empty() && chunk.windows(bytes.len()).any(|w| w == bytes)
        });
        if hit {
            rules.cut_after = None;
        }
        hit
    }
}

async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    stopped: oneshot::Receiver<()>,
) {
    let listener = TcpListener::from_std(listener).expect("a tokio listener");
    let accepting = async {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                // Out of descriptors, say: try again shortly.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            shared.accepted.fetch_add(1, Ordering::SeqCst);
            if shared.refusing() {
                drop(client);
                continue;
            }
            tokio::spawn(forward(client, Arc::clone(&shared)));
        }
    };
    tokio::select! {
        () = accepting => {}
        _ = stopped => {}
    }
}

/// Forwards one connection until either side closes it or the proxy drops it.
async fn forward(mut client: TcpStream, shared: Arc<Shared>) {
    let mut control = shared.control.subscribe();
    let generation = control.borrow().generation;
    // Held while blocked; dropped if the proxy drops connections meanwhile.
    loop {
        let now = *control.borrow_and_update();
        if now.generation != generation {
            return;
        }
        if !now.blocked {
            break;
        }
        if control.changed().await.is_err() {
            return;
        }
    }
    let Ok(mut server) = TcpStream::connect(shared.upstream).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    shared.open.fetch_add(1, Ordering::SeqCst);
    let (mut from_client, mut from_server) = ([0u8; 16 * 1024], [0u8; 16 * 1024]);
    let mut cut = false;
    loop {
        tokio::select! {
            read = client.read(&mut from_client) => {
                let Ok(n @ 1..) = read else { break };
                let chunk = &from_client[..n];
                cut = shared.cuts(chunk);
                if server.write_all(chunk).await.is_err() || cut {
                    break;
                }
            }
            read = server.read(&mut from_server) => {
                let Ok(n @ 1..) = read else { break };
                if client.write_all(&from_server[..n]).await.is_err() {
                    break;
                }
            }
            changed = control.changed() => {
                if changed.is_err() || control.borrow().generation != generation {
                    break;
                }
            }
        }
    }
    if cut {
        // The client's side closes now; the server's stays open and its answers are read
        // and thrown away, so it finishes what it was sent (a commit) as if all were well.
        drop(client);
        let draining = async { while let Ok(1..) = server.read(&mut from_server).await {} };
        let _ = tokio::time::timeout(Duration::from_secs(30), draining).await;
    }
    shared.open.fetch_sub(1, Ordering::SeqCst);
    // Both sockets close as they drop here.
}
