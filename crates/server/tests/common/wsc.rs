//! A WebSocket test client.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects to a game's socket.
pub async fn connect(addr: SocketAddr, id: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/games/{id}/ws"))
        .await
        .expect("websocket connects");
    ws
}

pub async fn send(ws: &mut Ws, v: &Value) {
    ws.send(Message::text(v.to_string())).await.expect("send");
}

/// The next JSON text message (pings skipped); panics after 10 s or on close.
pub async fn next(ws: &mut Ws) -> Value {
    match next_or_close(ws).await {
        Ok(v) => v,
        Err(code) => panic!("socket closed ({code:?}) while a message was expected"),
    }
}

/// The next JSON text message, or the close code; `presence` messages are skipped (they come
/// after the first `state` and whenever a player comes or goes: see [`recv`] and [`next_of`]).
pub async fn next_or_close(ws: &mut Ws) -> Result<Value, Option<u16>> {
    loop {
        let v = recv(ws).await?;
        if v["type"] != "presence" {
            return Ok(v);
        }
    }
}

/// The next JSON text message, presence included, or the close code; panics after 10 s.
pub async fn recv(ws: &mut Ws) -> Result<Value, Option<u16>> {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s");
        match msg {
            Some(Ok(Message::Text(t))) => {
                return Ok(serde_json::from_str(t.as_str()).expect("JSON message"))
            }
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| u16::from(f.code))),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Err(None),
        }
    }
}

/// The next message of type `kind` (`presence` too), skipping others.
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let v = match recv(ws).await {
            Ok(v) => v,
            Err(code) => panic!("socket closed ({code:?}) while a {kind} was expected"),
        };
        if v["type"] == kind {
            return v;
        }
    }
}

/// The whole state an `update` leads to from `last` (the connection's last state), as
/// docs/api.md tells a client to make it: `last`'s `moves` cut to `moves_kept` and the `played`
/// moves added, its `rounds` cut to `rounds_kept` and `rounds_added` added. A `state` message's
/// state is whole already. Panics when the update does not follow on from `last`.
pub fn apply_update(last: &Value, msg: &Value) -> Value {
    let mut state = msg["state"].clone();
    if state.get("moves").is_some() {
        return state;
    }
    let kept = msg["moves_kept"].as_u64().expect("moves_kept") as usize;
    let rounds_kept = msg["rounds_kept"].as_u64().expect("rounds_kept") as usize;
    let old_moves = last["moves"].as_array().expect("the last state's moves");
    let old_rounds = last["rounds"].as_array().expect("the last state's rounds");
    assert!(
        kept <= old_moves.len() && rounds_kept <= old_rounds.len(),
        "{msg}"
    );
    let mut moves: Vec<Value> = old_moves[..kept].to_vec();
    for p in msg["played"].as_array().into_iter().flatten() {
        moves.push(serde_json::json!({
            "ply": p["ply"], "round": p["round"], "side": p["side"], "move": p["move"],
            "board": p["board"], "closed": p["closed"], "stores": p["stores"],
            "taken": p["taken"], "position": p["position"],
        }));
    }
    assert_eq!(Some(moves.len() as u64), state["ply"].as_u64(), "{msg}");
    let mut rounds: Vec<Value> = old_rounds[..rounds_kept].to_vec();
    rounds.extend(
        msg["rounds_added"]
            .as_array()
            .expect("rounds_added")
            .iter()
            .cloned(),
    );
    state["moves"] = Value::Array(moves);
    state["rounds"] = Value::Array(rounds);
    state
}
