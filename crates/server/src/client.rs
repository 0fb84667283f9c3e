//! Who a request comes from: the TCP peer, or, when the peer is a trusted reverse proxy, the
//! client address that proxy forwards; and the key the per-client limits count by (an IPv6
//! client by its /64).
//!
//! A proxy's header is read only when the connection comes from an address given with
//! [`Proxies::trust`] (`pussa serve --trust-proxy`): anyone else could write any address in
//! it. Through a chain of proxies, the header is read from its right end (the entry the
//! nearest proxy added) leftwards, over the trusted proxies' own addresses, to the first
//! address that is not a trusted proxy: what the client wrote at the left end itself is never
//! believed. This is nginx's `real_ip_recursive on`, and Express's `trust proxy` with a list.

use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;

use axum::http::HeaderMap;

/// An address, or a network (`10.0.0.0/8`, `fd00::/8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    addr: IpAddr,
    bits: u8,
}

impl Net {
    /// Whether `ip` is in this network (an IPv4-mapped IPv6 address as its IPv4 address).
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.bits)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.bits))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Net {
    type Err = String;

    /// `ADDR` or `ADDR/BITS`, IPv6 with or without brackets.
    fn from_str(text: &str) -> Result<Net, String> {
        let text = text.trim();
        let (addr, bits) = match text.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (text, None),
        };
        let bare = addr
            .strip_prefix('[')
            .and_then(|a| a.strip_suffix(']'))
            .unwrap_or(addr);
        let addr: IpAddr = bare
            .parse::<IpAddr>()
            .map_err(|_| {
                format!(
                    "'{}' is not an IP address or network (like 127.0.0.1, 10.0.0.0/8 or \
                     fd00::/8)",
                    crate::util::cut(text, crate::util::QUOTE_MAX)
                )
            })?
            .to_canonical();
        let max: u8 = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => max,
            Some(b) => b.parse::<u8>().ok().filter(|&n| n <= max).ok_or_else(|| {
                format!(
                    "'{}': the prefix length after '/' must be 0..={max}",
                    crate::util::cut(text, crate::util::QUOTE_MAX)
                )
            })?,
        };
        Ok(Net { addr, bits })
    }
}

impl std::fmt::Display for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

/// The header a trusted proxy names its client in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProxyHeader {
    /// `X-Forwarded-For: client, proxy1, …` (nginx `$proxy_add_x_forwarded_for`, HAProxy
    /// `option forwardfor`, most load balancers).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
    /// `X-Real-IP: client` (one address, set by the proxy: nginx
    /// `proxy_set_header X-Real-IP $remote_addr`).
    XRealIp,
}

impl FromStr for ProxyHeader {
    type Err = String;
    fn from_str(text: &str) -> Result<ProxyHeader, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ProxyHeader::XForwardedFor),
            "forwarded" => Ok(ProxyHeader::Forwarded),
            "x-real-ip" => Ok(ProxyHeader::XRealIp),
            _ => Err(format!(
                "unknown proxy header '{}': expected x-forwarded-for, forwarded or x-real-ip",
                crate::util::cut(text, crate::util::QUOTE_MAX)
            )),
        }
    }
}

impl ProxyHeader {
    /// The header's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ProxyHeader::XForwardedFor => "x-forwarded-for",
            ProxyHeader::Forwarded => "forwarded",
            ProxyHeader::XRealIp => "x-real-ip",
        }
    }
}

/// The reverse proxies whose forwarded client address is believed (none by default: every
/// client is its TCP peer).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    trusted: Vec<Net>,
    header: ProxyHeader,
}

impl Proxies {
    /// Trusts the proxies at `nets`, reading the client's address from `header`.
    #[must_use]
    pub fn trust(nets: Vec<Net>, header: ProxyHeader) -> Proxies {
        Proxies {
            trusted: nets,
            header,
        }
    }

    /// Reads a comma-separated list of addresses or networks (`127.0.0.1,10.0.0.0/8`).
    ///
    /// # Errors
    /// An entry that is not an address or network, named; an empty list.
    pub fn parse_list(text: &str) -> Result<Vec<Net>, String> {
        let nets = text
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect::<Result<Vec<Net>, String>>()?;
        if nets.is_empty() {
            return Err("expected the proxy's address (like 127.0.0.1 or 10.0.0.0/8)".into());
        }
        Ok(nets)
    }

    /// Whether any proxy is trusted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.trusted.is_empty()
    }

    /// The header read from the trusted proxies.
    #[must_use]
    pub fn header(&self) -> ProxyHeader {
        self.header
    }

    /// The trusted proxies.
    #[must_use]
    pub fn nets(&self) -> &[Net] {
        &self.trusted
    }

    /// Whether `ip` is one of the trusted proxies.
    #[must_use]
    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|n| n.contains(ip))
    }

    /// The client of a request that came from `peer` with `headers`: `peer` itself unless it is
    /// a trusted proxy; then the right-most address of the proxy header that is not a trusted
    /// proxy (the left-most one when all are); `peer` when the header is missing, and the
    /// last address read when the next one does not read as an address (`unknown`, an
    /// obfuscated `_hidden`).
    #[must_use]
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let values = headers
            .get_all(self.header.name())
            .iter()
            .filter_map(|v| v.to_str().ok());
        let entries: Vec<&str> = match self.header {
            ProxyHeader::XForwardedFor | ProxyHeader::XRealIp => {
                values.flat_map(|v| v.split(',')).collect()
            }
            ProxyHeader::Forwarded => values
                .flat_map(|v| v.split(','))
                .filter_map(|element| {
                    element.split(';').find_map(|pair| {
                        let (k, v) = pair.split_once('=')?;
                        k.trim().eq_ignore_ascii_case("for").then_some(v)
                    })
                })
                .collect(),
        };
        let mut client = peer;
        for entry in entries.iter().rev() {
            let Some(ip) = parse_node(entry) else {
                return client;
            };
            client = ip;
            if !self.trusts(ip) {
                return ip;
            }
        }
        client
    }
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]:4711`, each maybe in double quotes (`Forwarded`).
fn parse_node(text: &str) -> Option<IpAddr> {
    let t = text.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
        .trim();
    if let Some(rest) = t.strip_prefix('[') {
        let (inside, _port) = rest.split_once(']')?;
        return inside
            .parse::<Ipv6Addr>()
            .ok()
            .map(|a| IpAddr::V6(a).to_canonical());
    }
    if let Ok(ip) = t.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    // IPv4 with a port.
    let (host, port) = t.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

/// The key the per-client limits (new games a minute, WebSocket connections) count a client
/// by: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 address), an IPv6
/// address by its /64 network, since one host (or one customer of a provider) is normally
/// given a whole /64 and can use any address in it.
#[must_use]
pub fn key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u128::MAX >> 64))),
        v4 => v4,
    }
}

/// A request's client address ([`Proxies::client`]), put in its extensions by
/// [`crate::conn::serve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// Marks a request whose TCP peer is a trusted proxy ([`Proxies::trusts`]), put in its
/// extensions by [`crate::conn::serve`]: only such a request's forwarded headers are read (the
/// client's address here, the forwarded host by [`crate::api::check_origin`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrustedProxy;

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64() {
        assert_eq!(key(ip("2001:db8::1")), ip("2001:db8::"));
        assert_eq!(key(ip("2001:db8::28")), key(ip("2001:db8::1")));
        assert_eq!(key(ip("2001:db8:0:0:ffff:1:2:3")), ip("2001:db8::"));
        assert_ne!(key(ip("2001:db8:0:1::1")), key(ip("2001:db8::1")));
        assert_eq!(key(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
    }

    #[test]
    fn networks_read_and_match() {
        let n: Net = "10.0.0.0/8".parse().unwrap();
        assert!(n.contains(ip("10.1.2.3")));
        assert!(!n.contains(ip("11.0.0.1")));
        assert!(n.contains(ip("::ffff:10.0.0.1")));
        let one: Net = "[::1]".parse().unwrap();
        assert!(one.contains(ip("::1")));
        assert!(!one.contains(ip("::2")));
        let all: Net = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.9")));
        assert!("10.0.0.0/33".parse::<Net>().unwrap_err().contains("0..=32"));
        assert!("localhost"
            .parse::<Net>()
            .unwrap_err()
            .contains("not an IP address"));
        assert!(Proxies::parse_list(" , ").is_err());
    }

    #[test]
    fn only_a_trusted_proxys_header_is_read_from_its_right_end() {
        let p = Proxies::trust(
            Proxies::parse_list("127.0.0.1,10.0.0.0/8").unwrap(),
            ProxyHeader::XForwardedFor,
        );
        // The client wrote its own X-Forwarded-For; the proxy appended the real address.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.5")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("203.0.113.5"));
        // Not from the proxy: the header is not believed.
        assert_eq!(p.client(ip("198.51.100.1"), &h), ip("198.51.100.1"));
        // Two proxies: the inner one's address is skipped.
        let h = headers(&[("x-forwarded-for", "203.0.113.5, 10.0.0.2")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("203.0.113.5"));
        // Several header lines are one list.
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.5"),
            ("x-forwarded-for", "10.0.0.2"),
        ]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("203.0.113.5"));
        // No header: the proxy itself.
        assert_eq!(
            p.client(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
        // Garbage stops the walk at the last address read.
        let h = headers(&[("x-forwarded-for", "unknown, 10.0.0.2")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("10.0.0.2"));
        // A header the proxy does not set is not read.
        let h = headers(&[("forwarded", "for=203.0.113.9")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
    }

    #[test]
    fn forwarded_and_x_real_ip_read_as_proxies_write_them() {
        let local = Proxies::parse_list("127.0.0.1").unwrap();
        let p = Proxies::trust(local.clone(), ProxyHeader::Forwarded);
        let h = headers(&[(
            "forwarded",
            "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"",
        )]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("2001:db8:cafe::17"));
        let h = headers(&[("forwarded", "For=\"192.0.2.61:8080\"")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("192.0.2.61"));
        let p = Proxies::trust(local, ProxyHeader::XRealIp);
        let h = headers(&[("x-real-ip", "192.0.2.62")]);
        assert_eq!(p.client(ip("127.0.0.1"), &h), ip("192.0.2.62"));
    }
}

/// How many of something each client has (the HTTP connections open,
/// [`crate::conn::Limits::max_connections_per_client`]; the hints running or waiting,
/// [`crate::app::App::set_hints_per_client`]), counted by [`key`].
#[derive(Default)]
pub(crate) struct PerClient {
    open: std::collections::HashMap<IpAddr, usize>,
}

/// One place in a client's share, given back when dropped.
pub(crate) struct Share {
    table: std::sync::Arc<std::sync::Mutex<PerClient>>,
    key: IpAddr,
}

impl PerClient {
    /// A place for one more from `peer` (counted by its [`key`]), unless its client has `max`.
    pub(crate) fn admit(
        table: &std::sync::Arc<std::sync::Mutex<PerClient>>,
        peer: IpAddr,
        max: usize,
    ) -> Option<Share> {
        let key = key(peer);
        let mut t = crate::app::lock(table);
        let n = t.open.entry(key).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Share {
            table: std::sync::Arc::clone(table),
            key,
        })
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut t = crate::app::lock(&self.table);
        if let Some(n) = t.open.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                t.open.remove(&self.key);
            }
        }
    }
}
