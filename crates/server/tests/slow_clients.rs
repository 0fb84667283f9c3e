//! Slow and half-open HTTP connections are closed: a request head or body that does not arrive
//! in time, and the cap on connections open at once.

mod common;

use std::time::{Duration, Instant};

use common::TestServer;
use pussa_server::conn::Limits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn short_limits() -> Limits {
    Limits {
        header_read_timeout: Duration::from_millis(500),
        body_read_timeout: Duration::from_millis(500),
        ..Limits::default()
    }
}

/// Sends `bytes`, then reads until the server closes the connection: what it sent, and how long
/// it took from before the connection was made (the server's timer starts at its accept, never
/// earlier, so a test thread held up after connecting cannot make it look early). Panics if the
/// connection is still open after 15 s.
async fn send_and_wait_for_close(s: &TestServer, bytes: &[u8]) -> (String, Duration) {
    let t0 = Instant::now();
    let mut stream = TcpStream::connect(s.addr).await.expect("connect");
    stream.write_all(bytes).await.expect("write");
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(15), async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "the server kept a half-sent request's connection open: {:?}",
        String::from_utf8_lossy(&buf)
    );
    (String::from_utf8_lossy(&buf).into_owned(), t0.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_without_its_blank_line_is_closed() {
    let s = TestServer::start_with_limits("slow-head", short_limits()).await;
    let (_, took) = send_and_wait_for_close(&s, b"GET / HTTP/1.1\r\nHost: x\r\n").await;
    assert!(took >= Duration::from_millis(300), "closed after {took:?}");
    // A connection that never sends a byte is closed too.
    let (answer, _) = send_and_wait_for_close(&s, b"").await;
    assert!(!answer.contains("200 OK"), "{answer}");
    // Whole requests are still served.
    assert_eq!(s.get("/api/meta").await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_shorter_than_announced_is_refused_and_closed() {
    let s = TestServer::start_with_limits("slow-body", short_limits()).await;
    let (answer, took) = send_and_wait_for_close(
        &s,
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"game\":",
    )
    .await;
    assert!(took >= Duration::from_millis(300), "closed after {took:?}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains(
            r#"{"error":"request too slow: the request body did not arrive within 0.5 s","status":408}"#
        ),
        "{answer}"
    );
    // No game was made of it.
    let list = s.get("/api/games").await.json();
    assert_eq!(list["games"].as_array().unwrap().len(), 0, "{list}");
    // A body sent in whole, even slowly within the limit, is read.
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    let body = br#"{"game":"raja-pasu"}"#;
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..5]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    stream.write_all(&body[5..]).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_for_a_place() {
    let s = TestServer::start_with_limits(
        "slow-cap",
        Limits {
            header_read_timeout: Duration::from_millis(1500),
            max_connections: 2,
            ..Limits::default()
        },
    )
    .await;
    // Two silent connections take both places (the server accepts in the order of connecting)
    // ... so a third is served only once the first of them is timed out, 1.5 s after its
    // accept. Timed from before the first connect: a test thread held up on a loaded machine
    // between the connects and the request cannot shorten what is measured.
    let t0 = Instant::now();
    let _a = TcpStream::connect(s.addr).await.unwrap();
    let _b = TcpStream::connect(s.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(s.get("/api/meta").await.status, 200);
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(1000), "served after {took:?}");
    s.stop().await;
}
