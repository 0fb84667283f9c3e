//! The page's files: validators and compression (QA pass 19, mobile report, defect 6: every
//! reload downloaded the ~270 KB of the page again, uncompressed and with no `ETag`).

mod common;

use std::io::Read as _;

use common::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw answer: status, headers (names lower-case), body bytes.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET path` with `headers` (`Name: value` lines), read whole (the body as bytes).
async fn get(s: &TestServer, path: &str, headers: &[&str]) -> Answer {
    let mut req = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        s.addr
    );
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    let mut tcp = TcpStream::connect(s.addr).await.unwrap();
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        tcp.read_to_end(&mut buf),
    )
    .await
    .expect("answer within 30 s")
    .unwrap();
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[end + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let nl = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let n = usize::from_str_radix(std::str::from_utf8(&rest[..nl]).unwrap().trim(), 16)
                .unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + n]);
            rest = &rest[nl + 4 + n..];
        }
        body = out;
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

/// Every text file of the page has an `ETag`; `If-None-Match` with it is a 304 without a body;
/// a client that accepts gzip gets the same bytes gzip-compressed (smaller), under a tag of its
/// own and `Vary: Accept-Encoding`; one that does not (or refuses it with `q=0`) gets them as
/// they are.
#[tokio::test]
async fn page_files_have_etags_answer_304_and_are_gzipped_when_accepted() {
    let s = TestServer::start("page-files").await;
    for (path, file) in [
        ("/", "index.html"),
        ("/app.js", "app.js"),
        ("/style.css", "style.css"),
    ] {
        let embedded = pussa_server::assets::find(file).unwrap();
        let plain = get(&s, path, &[]).await;
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(plain.body, embedded, "{path}");
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert_eq!(plain.header("cache-control"), Some("no-cache"));
        let etag = plain.header("etag").expect("an ETag").to_string();
        assert_eq!(etag, pussa_server::assets::etag_of(embedded), "{path}");
        assert_eq!(plain.header("vary"), Some("Accept-Encoding"), "{path}");

        // Revalidation: the same tag (also weak, or in a list) is a 304 with no body.
        for inm in [etag.clone(), format!("W/{etag}"), format!("\"x\", {etag}")] {
            let again = get(&s, path, &[&format!("If-None-Match: {inm}")]).await;
            assert_eq!(again.status, 304, "{path} {inm}");
            assert!(again.body.is_empty(), "{path}");
            assert_eq!(again.header("etag"), Some(etag.as_str()));
        }
        let other = get(&s, path, &["If-None-Match: \"0000000000000000\""]).await;
        assert_eq!(other.status, 200, "{path}");
        assert_eq!(other.body, embedded);

        // Compressed when the client takes gzip.
        // Taken with a weight, or through `*` when gzip is not listed.
        for taken in ["gzip;q=0.5, identity", "*", "br, *;q=0.1", "gzip;q=0.001"] {
            let a = get(&s, path, &[&format!("Accept-Encoding: {taken}")]).await;
            assert_eq!(a.header("content-encoding"), Some("gzip"), "{path} {taken}");
        }
        let gz = get(&s, path, &["Accept-Encoding: gzip, deflate, br"]).await;
        assert_eq!(gz.status, 200, "{path}");
        assert_eq!(gz.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gz.header("vary"), Some("Accept-Encoding"));
        assert!(
            gz.body.len() < embedded.len() / 2,
            "{path}: {} bytes",
            gz.body.len()
        );
        assert_eq!(gunzip(&gz.body), embedded, "{path}");
        let gz_tag = gz.header("etag").expect("an ETag").to_string();
        assert_ne!(gz_tag, etag, "{path}: the gzip form has a tag of its own");
        let again = get(
            &s,
            path,
            &["Accept-Encoding: gzip", &format!("If-None-Match: {gz_tag}")],
        )
        .await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());

        // An explicit `gzip;q=0` refuses gzip whatever `*` says (RFC 9110, 12.5.3: `*` is
        // any coding not listed); `*;q=0` with gzip unlisted refuses it too.
        for refused in [
            "gzip;q=0",
            "identity",
            "br",
            "gzip;q=0, *",
            "*, gzip;q=0",
            "gzip;q=0, *;q=1",
            "GZIP; Q=0.000, *",
            "*;q=0",
            "identity, *;q=0",
        ] {
            let a = get(&s, path, &[&format!("Accept-Encoding: {refused}")]).await;
            assert_eq!(a.header("content-encoding"), None, "{path} {refused}");
            assert_eq!(a.body, embedded, "{path} {refused}");
        }
    }
    // An image is sent as it is, with its tag.
    let svg = get(&s, "/favicon.svg", &["Accept-Encoding: gzip"]).await;
    assert_eq!(svg.status, 200);
    assert!(svg.header("etag").is_some());
    s.stop().await;
}
