//! The harness's own HTTP/1.1 load generator, in the manner of `wrk -t1 -cN -dS`: one OS thread
//! with a single-threaded runtime keeps N keep-alive connections busy for a fixed time, each
//! sending one prepared request and reading its answer (status line, headers, a body framed by
//! `Content-Length` or chunked) before the next. No client library, no JSON parsing: the point
//! is that the generator costs far less than any server it drives, so the server is what is
//! measured (row 1 shows the in-memory baseline passing 15k req/s with it).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{Throughput, percentile};

/// A prepared `GET path` with an optional bearer credential, keep-alive.
pub(crate) fn get_request(addr: SocketAddr, path: &str, bearer: Option<&str>) -> Vec<u8> {
    let auth = bearer.map(|b| format!("Authorization: Bearer {b}\r\n")).unwrap_or_default();
    format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\n{auth}\r\n").into_bytes()
}

/// Keep `connections` connections to `addr` busy sending `request` for `duration`, on a thread
/// of their own; every answer must be `200`. Answers the completed requests per second and the
/// latency percentiles.
pub(crate) fn hammer(
    addr: SocketAddr,
    request: Vec<u8>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Throughput> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        runtime.block_on(async move {
            let request = std::sync::Arc::new(request);
            let started = Instant::now();
            let deadline = started + duration;
            let tasks: Vec<_> =
                (0..connections).map(|_| tokio::spawn(connection(addr, request.clone(), deadline))).collect();
            let mut latencies = Vec::new();
            for task in tasks {
                latencies.extend(task.await??);
            }
            let wall = started.elapsed();
            latencies.sort();
            Ok(Throughput {
                per_sec: latencies.len() as f64 / wall.as_secs_f64(),
                p50: percentile(&latencies, 0.50),
                p99: percentile(&latencies, 0.99),
            })
        })
    })
    .join()
    .map_err(|_| anyhow::anyhow!("the load generator's thread panicked"))?
}

/// One keep-alive connection's loop until `deadline`: its latencies.
async fn connection(
    addr: SocketAddr,
    request: std::sync::Arc<Vec<u8>>,
    deadline: Instant,
) -> anyhow::Result<Vec<Duration>> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut latencies = Vec::new();
    while Instant::now() < deadline {
        let sent = Instant::now();
        stream.write_all(&request).await?;
        read_response(&mut stream, &mut buf).await?;
        latencies.push(sent.elapsed());
    }
    Ok(latencies)
}

/// Read one whole `200` answer from `stream` into `buf` (cleared first).
async fn read_response(stream: &mut TcpStream, buf: &mut Vec<u8>) -> anyhow::Result<()> {
    buf.clear();
    let head_end = loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            break i + 4;
        }
        fill(stream, buf).await?;
    };
    let head = std::str::from_utf8(&buf[..head_end])?;
    anyhow::ensure!(head.starts_with("HTTP/1.1 200"), "answered {}", head.lines().next().unwrap_or(""));
    let header = |name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_ascii_lowercase())
    };
    if let Some(length) = header("content-length") {
        let total = head_end + length.parse::<usize>()?;
        while buf.len() < total {
            fill(stream, buf).await?;
        }
        anyhow::ensure!(buf.len() == total, "bytes past the answer on a request-response connection");
    } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        // Chunks until the zero-length one and the blank line after it.
        let mut at = head_end;
        loop {
            let line_end = loop {
                if let Some(i) = find(&buf[at..], b"\r\n") {
                    break at + i;
                }
                fill(stream, buf).await?;
            };
            let size_text = std::str::from_utf8(&buf[at..line_end])?;
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)?;
            let next = line_end + 2 + size + 2;
            while buf.len() < next {
                fill(stream, buf).await?;
            }
            at = next;
            if size == 0 {
                break;
            }
        }
    } else {
        anyhow::bail!("an answer with neither Content-Length nor chunked framing");
    }
    Ok(())
}

/// Append what the socket has to `buf`; an error at end of stream.
async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> anyhow::Result<()> {
    let mut chunk = [0u8; 16 * 1024];
    let n = stream.read(&mut chunk).await?;
    anyhow::ensure!(n > 0, "the server closed the connection mid-answer");
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

/// The first index of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
