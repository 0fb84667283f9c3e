//! The database as found on disk: another application's file, a newer pussa's, a damaged one,
//! and stored games that cannot be continued. A real server on a loopback port.

mod common;

use common::{letters, TestServer};
use rusqlite::Connection;
use serde_json::{json, Value};

/// Why the server refused to start on the database in `dir`.
async fn refusal(dir: &std::path::Path) -> String {
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("pussa.sqlite3"),
    };
    match pussa_server::Server::bind(&config).await {
        Ok(_) => panic!("the server opened {}", dir.display()),
        Err(e) => format!("{e:#}"),
    }
}

fn tables(db: &std::path::Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names = st.query_map([], |r| r.get(0)).unwrap();
    names.collect::<rusqlite::Result<_>>().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_applications_database_is_refused_in_one_line_and_left_alone() {
    for (schema, listed) in [
        ("CREATE TABLE invoices (n INTEGER)", "invoices"),
        (
            "CREATE TABLE games (id TEXT, title TEXT); CREATE TABLE notes (t TEXT)",
            "games, notes",
        ),
    ] {
        let dir = common::temp_dir("store-foreign");
        let db = dir.join("pussa.sqlite3");
        Connection::open(&db)
            .unwrap()
            .execute_batch(schema)
            .unwrap();
        let before = tables(&db);
        let e = refusal(&dir).await;
        assert!(
            e.ends_with(&format!(": not a pussa database (it has tables {listed})")),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
        assert_eq!(tables(&db), before, "nothing was added to the file");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_is_marked_and_a_newer_or_damaged_one_refused() {
    let dir = common::temp_dir("store-marker");
    let s = TestServer::start_in(dir.clone()).await;
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    assert!(c["id"].is_string());
    s.stop().await;
    let db = dir.join("pussa.sqlite3");
    {
        let conn = Connection::open(&db).unwrap();
        let app: i32 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(
            (app, version),
            (
                pussa_server::store::APPLICATION_ID,
                pussa_server::store::SCHEMA_VERSION
            )
        );
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let e = refusal(&dir).await;
    assert!(
        e.contains("written by a newer pussa (schema version 99"),
        "{e}"
    );
    // Back to this version, but the moves table is gone while games are stored.
    {
        let conn = Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute_batch("DROP TABLE moves").unwrap();
    }
    let e = refusal(&dir).await;
    assert!(
        e.contains("a damaged pussa database: it holds 1 game(s) but no moves table"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_that_cannot_be_continued_are_refused_and_flagged_not_replayed() {
    let dir = common::temp_dir("store-damaged");
    let s = TestServer::start_in(dir.clone()).await;
    // A same-screen game with three moves, and a computer game.
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    let (hot, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    for _ in 0..3 {
        let st = s.get(&format!("/api/games/{hot}")).await.json();
        let mv = letters(&st["legal"])[0].clone();
        let r = s
            .post(
                &format!("/api/games/{hot}/moves"),
                &json!({"move": mv, "token": token}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let (comp, comp_token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    let legal = letters(&c["state"]["legal"]);
    s.stop().await;
    {
        let conn = Connection::open(dir.join("pussa.sqlite3")).unwrap();
        conn.execute("UPDATE games SET ply = 9999 WHERE id = ?1", [&hot])
            .unwrap();
        conn.execute("UPDATE games SET level = 'godlike' WHERE id = ?1", [&comp])
            .unwrap();
    }
    let s = TestServer::start_in(dir.clone()).await;
    let r = s.get(&format!("/api/games/{hot}")).await;
    r.assert_error(
        409,
        &format!(
            "game {hot} cannot be continued: its row says 9999 moves were played but 3 are stored"
        ),
    );
    let r = s
        .post(
            &format!("/api/games/{hot}/moves"),
            &json!({"move": "A", "token": token}),
        )
        .await;
    r.assert_error(409, "cannot be continued");
    let r = s.get(&format!("/api/games/{comp}")).await;
    r.assert_error(
        409,
        &format!("game {comp} cannot be continued: the computer's level: unknown level 'godlike'"),
    );
    // The move is refused, not stored with a reply that never comes.
    let r = s
        .post(
            &format!("/api/games/{comp}/moves"),
            &json!({"move": legal[0], "token": comp_token}),
        )
        .await;
    r.assert_error(409, "cannot be continued");
    // The list flags both.
    let list = s.get("/api/games?limit=10").await.json();
    for g in list["games"].as_array().unwrap() {
        let damaged = g["damaged"].as_str().unwrap_or_else(|| panic!("{g}"));
        assert!(damaged.contains("level") || damaged.contains("9999"), "{g}");
    }
    s.stop().await;
    let conn = Connection::open(dir.join("pussa.sqlite3")).unwrap();
    let ply: i64 = conn
        .query_row(
            "SELECT count(*) FROM moves WHERE game_id = ?1",
            [&comp],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(ply, 0, "no move was stored in the computer game");
}

/// `n` same-screen Walak-pussa games, each with one move stored: their ids and tokens.
async fn games_with_one_move(s: &TestServer, n: usize) -> Vec<(String, Value)> {
    let mut games = Vec::new();
    for _ in 0..n {
        let c = s
            .post("/api/games", &json!({"game": "walak-pussa"}))
            .await
            .json();
        let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
        let mv = letters(&c["state"]["legal"])[0].clone();
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": token}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        games.push((id, token));
    }
    games
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_field_of_the_wrong_type_flags_its_game_and_blocks_nothing_else() {
    let dir = common::temp_dir("store-types");
    let s = TestServer::start_in(dir.clone()).await;
    // Seven same-screen games, each with one move stored.
    let games = games_with_one_move(&s, 7).await;
    s.stop().await;
    // SQLite keeps a value of another type in any column when it cannot convert it.
    let damage = [
        (
            "UPDATE games SET ply = 'two' WHERE id = ?1",
            "ply: stored as text, not an integer",
        ),
        (
            "UPDATE games SET mode = x'00ff' WHERE id = ?1",
            "mode: stored as a blob, not text",
        ),
        (
            "UPDATE games SET finished = '2026-12-01' WHERE id = ?1",
            "finished: stored as text, not an integer",
        ),
        (
            "UPDATE games SET created = 1.5 WHERE id = ?1",
            "created: stored as a real number, not an integer",
        ),
        (
            "UPDATE games SET winner = x'01' WHERE id = ?1",
            "winner: stored as a blob, not text",
        ),
        (
            "UPDATE moves SET mv = x'41' WHERE game_id = ?1",
            "move 1: mv: stored as a blob, not text",
        ),
    ];
    let before: Vec<(String, String)> = {
        let conn = Connection::open(dir.join("pussa.sqlite3")).unwrap();
        for ((sql, _), (id, _)) in damage.iter().zip(&games) {
            assert_eq!(conn.execute(sql, [id]).unwrap(), 1, "{sql}");
        }
        let mut st = conn
            .prepare("SELECT id, quote(ply) || quote(mode) || quote(finished) || quote(created) FROM games ORDER BY id")
            .unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    };
    // The server starts and answers for every game.
    let s = TestServer::start_in(dir.clone()).await;
    for ((_, why), (id, token)) in damage.iter().zip(&games) {
        let r = s.get(&format!("/api/games/{id}")).await;
        r.assert_error(409, &format!("game {id} cannot be continued: {why}"));
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": "a", "token": token}),
            )
            .await;
        r.assert_error(409, &format!("game {id} cannot be continued: {why}"));
    }
    // The list shows every game, the damaged ones flagged with their reason.
    let list = s.get("/api/games?limit=50").await;
    assert_eq!(list.status, 200, "{}", list.body);
    let list = list.json();
    let listed = list["games"].as_array().unwrap();
    assert_eq!(listed.len(), games.len(), "{list}");
    for ((_, why), (id, _)) in damage.iter().zip(&games) {
        let g = listed.iter().find(|g| g["id"] == id.as_str()).unwrap();
        assert_eq!(g["damaged"], *why, "{g}");
    }
    // The healthy game is played on.
    let (ok, token) = games.last().unwrap();
    let st = s.get(&format!("/api/games/{ok}")).await.json();
    let mv = letters(&st["legal"])[0].clone();
    let r = s
        .post(
            &format!("/api/games/{ok}/moves"),
            &json!({"move": mv, "token": token}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let g = listed.iter().find(|g| g["id"] == ok.as_str()).unwrap();
    assert!(g["damaged"].is_null(), "{g}");
    s.stop().await;
    // The damaged rows were left as they were.
    let conn = Connection::open(dir.join("pussa.sqlite3")).unwrap();
    let mut st = conn
        .prepare("SELECT id, quote(ply) || quote(mode) || quote(finished) || quote(created) FROM games ORDER BY id")
        .unwrap();
    let after: Vec<(String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for (b, a) in before.iter().zip(&after) {
        if b.0 != *ok {
            assert_eq!(a, b);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_create_games_without_end() {
    let s = TestServer::start_configured(common::temp_dir("store-rate"), |server| {
        server.set_new_games_per_minute(3);
    })
    .await;
    for _ in 0..3 {
        let r = s.post("/api/games", &json!({"game": "raja-pasu"})).await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let r = s.post("/api/games", &json!({"game": "raja-pasu"})).await;
    r.assert_error(
        429,
        "too many new games from your address: at most 3 a minute; try again in",
    );
    let wait: u64 = r
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
    let record = "[Game \"raja-pasu\"]\n\n1. A *\n";
    s.post("/api/games/import", &json!({"record": record}))
        .await
        .assert_error(429, "too many new games");
    // Other requests go on.
    assert_eq!(s.get("/api/games").await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_nobody_asks_for_leave_memory_and_come_back_from_the_database() {
    let dir = common::temp_dir("store-evict");
    let s = TestServer::start_configured(dir.clone(), |server| {
        server.set_evict_after(std::time::Duration::from_millis(300));
    })
    .await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let c = s
            .post("/api/games", &json!({"game": "raja-pasu"}))
            .await
            .json();
        let id = c["id"].as_str().unwrap().to_string();
        let mv = letters(&c["state"]["legal"])[0].clone();
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": c["token"]}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        ids.push((id, r.json()["state"].clone()));
    }
    // A game with a connection stays.
    let (watched, _) = ids[0].clone();
    let mut ws = common::wsc::connect(s.addr, &watched).await;
    common::wsc::next(&mut ws).await;
    let t0 = std::time::Instant::now();
    while s.app.games_in_memory() > 1 {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(30),
            "{} games still in memory",
            s.app.games_in_memory()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Each comes back as it was when asked for.
    for (id, state) in &ids {
        assert_eq!(&s.get(&format!("/api/games/{id}")).await.json(), state);
    }
    assert!(s.app.games_in_memory() >= 5);
    drop(ws);
    s.stop().await;
    // At start, unfinished games are checked but not held in memory.
    let s = TestServer::start_in(dir).await;
    assert_eq!(s.app.games_in_memory(), 0);
    assert_eq!(s.app.restored(), 5);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_series_counts_every_game() {
    use pussa_server::store::{GameRow, Store};
    let dir = common::temp_dir("store-series");
    let row = |n: usize, finished: bool| GameRow {
        id: format!("series{n:04}"),
        game: "raja-pasu".into(),
        mode: "single".into(),
        first: "S".into(),
        opponent: "online".into(),
        level: None,
        creator_seat: "S".into(),
        token_s: Some(format!("s{n}")),
        token_n: Some(format!("n{n}")),
        invite: None,
        created: n as i64,
        finished: finished.then_some(n as i64),
        winner: finished.then(|| "S".to_string()),
        ply: 0,
        setup: None,
        rematch: None,
        ended: finished.then(|| "resign".to_string()),
        ended_by: finished.then(|| "N".to_string()),
        series: None,
        termination: None,
        unreadable: None,
    };
    {
        let mut store = Store::open(&dir.join("pussa.sqlite3")).unwrap();
        store.insert_game(&row(1, true)).unwrap();
        // 105 games, South winning every finished one; the last one is being played.
        for n in 2..=105 {
            store
                .insert_rematch(&format!("series{:04}", n - 1), &row(n, n < 105))
                .unwrap();
        }
    }
    let s = TestServer::start_in(dir).await;
    let st = s.get("/api/games/series0105").await.json();
    assert_eq!(st["series"]["game"], 105, "{}", st["series"]);
    let score = &st["series"]["score"];
    let total = score["S"].as_f64().unwrap() + score["N"].as_f64().unwrap();
    assert_eq!(total, 104.0, "{score}");
    // South won every game; the player now at South sat there in games 103, 101, …, 1.
    assert_eq!(score["S"], 52.0, "{score}");
    s.stop().await;
}

/// A stored value the rules do not know is named by its column, in the `column: problem`
/// form of the type errors, and the game's id is said once: `first` and `creator_seat` both
/// gave the same `unknown side 'x'`, and `game`/`opponent` repeated the id
/// (`game ID cannot be continued: game ID: …`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_value_the_rules_do_not_know_names_its_column_once() {
    let dir = common::temp_dir("store-values");
    let s = TestServer::start_in(dir.clone()).await;
    let games: Vec<String> = games_with_one_move(&s, 6)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    s.stop().await;
    let damage = [
        (
            "UPDATE games SET game = 'x' WHERE id = ?1",
            "game: unknown game 'x'",
        ),
        (
            "UPDATE games SET first = 'x' WHERE id = ?1",
            "first: unknown side 'x': expected S (South) or N (North)",
        ),
        (
            "UPDATE games SET creator_seat = 'x' WHERE id = ?1",
            "creator_seat: unknown side 'x': expected S (South) or N (North)",
        ),
        (
            "UPDATE games SET opponent = 'x' WHERE id = ?1",
            "opponent: unknown opponent kind 'x': expected computer, hotseat or online",
        ),
        (
            "UPDATE games SET ended = 'x' WHERE id = ?1",
            "ended: unknown ending 'x'",
        ),
        (
            "UPDATE moves SET mv = 'Q' WHERE game_id = ?1",
            "move 1: mv: ",
        ),
    ];
    {
        let conn = Connection::open(dir.join("pussa.sqlite3")).unwrap();
        for ((sql, _), id) in damage.iter().zip(&games) {
            assert_eq!(conn.execute(sql, [id]).unwrap(), 1, "{sql}");
        }
    }
    let s = TestServer::start_in(dir.clone()).await;
    for ((_, why), id) in damage.iter().zip(&games) {
        let r = s.get(&format!("/api/games/{id}")).await;
        r.assert_error(409, &format!("game {id} cannot be continued: {why}"));
        let msg = r.json()["error"].as_str().unwrap().to_string();
        assert_eq!(msg.matches(id.as_str()).count(), 1, "{msg}");
    }
    s.stop().await;
}

/// A rematch is a new game: it counts against the address's allowance like `POST /api/games`
/// (rematch and abort made games without end: QA pass 15); asking again for a rematch that
/// exists makes nothing and does not count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_counts_against_the_new_games_allowance() {
    let s = TestServer::start_configured(common::temp_dir("store-rate-rematch"), |server| {
        server.set_new_games_per_minute(3);
    })
    .await;
    // Game 1 of the allowance.
    let (mut id, mut south, _) = s.online_game("raja-pasu").await;
    for n in 2..=4 {
        let r = s
            .post(&format!("/api/games/{id}/abort"), &json!({"token": south}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let r = s
            .post(
                &format!("/api/games/{id}/rematch"),
                &json!({"token": south}),
            )
            .await;
        if n == 4 {
            r.assert_error(
                429,
                "too many new games from your address: at most 3 a minute; try again in",
            );
            assert!(r.header("retry-after").is_some(), "Retry-After");
            break;
        }
        assert_eq!(r.status, 201, "{}", r.body);
        // The same ask again gets the same game: nothing made, nothing counted.
        let again = s
            .post(
                &format!("/api/games/{id}/rematch"),
                &json!({"token": south}),
            )
            .await;
        assert_eq!(again.status, 200, "{}", again.body);
        let r = r.json();
        assert_eq!(again.json()["id"], r["id"]);
        id = r["id"].as_str().unwrap().to_string();
        south = r["token"].as_str().unwrap().to_string();
    }
    s.post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .assert_error(429, "too many new games");
    s.stop().await;
}

/// A rematch's `series` is worked out from the game before and kept on its row, so a rematch
/// costs the same however long the chain (it walked the whole chain under the database lock):
/// the chain's earlier games are never read again, even after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_keeps_its_series_without_walking_the_chain() {
    let dir = common::temp_dir("store-series-row");
    let s = TestServer::start_in(dir.clone()).await;
    let (first, mut south, mut north) = s.online_game("raja-pasu").await;
    let mut id = first.clone();
    let mut ids = vec![id.clone()];
    // Game 1: North resigns (South wins); game 2: a draw agreed; game 3: aborted; game 4: South
    // resigns.
    let mut series = Vec::new();
    for n in 1..=4 {
        match n {
            1 => {
                let r = s
                    .post(&format!("/api/games/{id}/resign"), &json!({"token": north}))
                    .await;
                assert_eq!(r.status, 200, "{}", r.body);
            }
            2 => {
                for t in [&south, &north] {
                    let r = s
                        .post(
                            &format!("/api/games/{id}/draw"),
                            &json!({"token": t, "offer": true}),
                        )
                        .await;
                    assert_eq!(r.status, 200, "{}", r.body);
                }
            }
            3 => {
                let r = s
                    .post(&format!("/api/games/{id}/abort"), &json!({"token": south}))
                    .await;
                assert_eq!(r.status, 200, "{}", r.body);
            }
            _ => {
                let r = s
                    .post(&format!("/api/games/{id}/resign"), &json!({"token": south}))
                    .await;
                assert_eq!(r.status, 200, "{}", r.body);
            }
        }
        let a = s
            .post(
                &format!("/api/games/{id}/rematch"),
                &json!({"token": south}),
            )
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
        let a = a.json();
        let b = s
            .post(
                &format!("/api/games/{id}/rematch"),
                &json!({"token": north}),
            )
            .await
            .json();
        id = a["id"].as_str().unwrap().to_string();
        // The seats swap: the old South plays North.
        (south, north) = (
            b["token"].as_str().unwrap().to_string(),
            a["token"].as_str().unwrap().to_string(),
        );
        ids.push(id.clone());
        series.push(a["state"]["series"].clone());
    }
    // Points of the players now at South and North (they swap every game).
    assert_eq!(series[0], json!({"game": 2, "score": {"S": 0.0, "N": 1.0}}));
    assert_eq!(series[1], json!({"game": 3, "score": {"S": 1.5, "N": 0.5}}));
    assert_eq!(series[2], json!({"game": 4, "score": {"S": 0.5, "N": 1.5}}));
    assert_eq!(series[3], json!({"game": 5, "score": {"S": 2.5, "N": 0.5}}));
    s.stop().await;
    // The earlier games are gone from the database: the last game's series is its own.
    {
        let db = Connection::open(dir.join("pussa.sqlite3")).unwrap();
        for gone in &ids[..4] {
            db.execute("DELETE FROM games WHERE id = ?1", [gone])
                .unwrap();
        }
    }
    let s = TestServer::start_in(dir).await;
    let st = s.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(st["series"], series[3]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_database_is_upgraded_to_3_so_older_builds_refuse_it() {
    // Version 3 added the `termination` column and the `forfeit` and `time` endings, which a
    // pussa of version 2 would misread (it would call an imported forfeit damaged): such a
    // pussa refuses any database above 2, so the version written must be 3.
    assert_eq!(pussa_server::store::SCHEMA_VERSION, 3);
    let dir = common::temp_dir("store-v1");
    let s = TestServer::start_in(dir.clone()).await;
    let c = s
        .post("/api/games", &json!({"game": "raja-pasu"}))
        .await
        .json();
    let id = c["id"].as_str().unwrap().to_string();
    s.stop().await;
    let db = dir.join("pussa.sqlite3");
    let version = |conn: &Connection| -> i32 {
        conn.pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    };
    let has_termination = |conn: &Connection| -> bool {
        conn.query_row(
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'termination'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
            == 1
    };
    // Made as version 2 wrote it: no `termination` column, user_version 2.
    {
        let conn = Connection::open(&db).unwrap();
        assert_eq!(version(&conn), 3, "a new database is written as version 3");
        conn.execute_batch("ALTER TABLE games DROP COLUMN termination")
            .unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        assert!(!has_termination(&conn));
    }
    let s = TestServer::start_in(dir.clone()).await;
    let st = s.get(&format!("/api/games/{id}")).await;
    assert_eq!(st.status, 200, "{}", st.body);
    s.stop().await;
    {
        let conn = Connection::open(&db).unwrap();
        assert_eq!(version(&conn), 3, "the version-2 database was upgraded");
        assert!(has_termination(&conn), "the termination column was added");
        // What a pussa reading up to version 2 does with it.
        conn.pragma_update(None, "user_version", 4).unwrap();
    }
    let e = refusal(&dir).await;
    assert!(
        e.contains(
            "written by a newer pussa (schema version 4; this pussa reads up to 3): run a pussa \
             that reads schema 4 (`pussa --version` says which schema a build reads), or \
             restore the backup made before the upgrade"
        ),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_database_is_upgraded_only_once_the_address_is_bound_and_the_upgrade_is_said() {
    let dir = common::temp_dir("store-upgrade-late");
    let s = TestServer::start_in(dir.clone()).await;
    for _ in 0..3 {
        let c = s.post("/api/games", &json!({"game": "raja-pasu"})).await;
        assert_eq!(c.status, 201, "{}", c.body);
    }
    s.stop().await;
    let db = dir.join("pussa.sqlite3");
    let version = |db: &std::path::Path| -> (i32, i64) {
        let conn = Connection::open(db).unwrap();
        let v = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        let series = conn
            .query_row(
                "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'series'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (v, series)
    };
    // As version 1 wrote it.
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "ALTER TABLE games DROP COLUMN series; ALTER TABLE games DROP COLUMN termination",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    assert_eq!(version(&db), (1, 0));
    // The address is held by another program: the start fails, and the file is still version
    // 1, which the release that wrote it opens.
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let config = pussa_server::Config {
        addr: held.local_addr().unwrap(),
        db: db.clone(),
    };
    let e = match pussa_server::Server::bind(&config).await {
        Ok(_) => panic!("the server bound a held address"),
        Err(e) => format!("{e:#}"),
    };
    assert!(e.starts_with("cannot listen on "), "{e}");
    assert_eq!(version(&db), (1, 0), "a failed start upgraded the file");
    drop(held);
    // A start that can listen upgrades it, and says so (and what the file holds).
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: db.clone(),
    };
    let server = pussa_server::Server::bind(&config).await.unwrap();
    let d = db.display();
    assert_eq!(
        server.database().lines(),
        [
            format!(
                "pussa: upgraded {d} from schema 1 to 3; earlier pussa builds can no longer \
                 open it"
            ),
            format!("pussa: 3 games (3 unfinished) in {d}"),
        ]
    );
    drop(server);
    assert_eq!(version(&db), (3, 1));
    // Started again: nothing left to upgrade.
    let server = pussa_server::Server::bind(&config).await.unwrap();
    assert_eq!(
        server.database().lines(),
        [format!("pussa: 3 games (3 unfinished) in {d}")]
    );
    drop(server);
    // A mistyped data folder makes a new database, and says so.
    let typo = common::temp_dir("store-upgrade-typo").join("pussa.sqlite3");
    let server = pussa_server::Server::bind(&pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: typo.clone(),
    })
    .await
    .unwrap();
    assert_eq!(
        server.database().lines(),
        [format!("pussa: new database created at {}", typo.display())]
    );
}

/// The schema version of the file at `db` and whether its games table has the `series`
/// column (added by version 2).
fn schema_of(db: &std::path::Path) -> (i32, bool) {
    let conn = Connection::open(db).unwrap();
    let v = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    let series: i64 = conn
        .query_row(
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'series'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    (v, series == 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_fails_reading_the_games_leaves_an_older_schema_as_it_was() {
    let dir = common::temp_dir("store-upgrade-damaged");
    let s = TestServer::start_in(dir.clone()).await;
    for _ in 0..3 {
        let c = s.post("/api/games", &json!({"game": "raja-pasu"})).await;
        assert_eq!(c.status, 201, "{}", c.body);
    }
    s.stop().await;
    let db = dir.join("pussa.sqlite3");
    // As version 1 wrote it, and then the games table's page damaged.
    let (page_size, root) = {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "ALTER TABLE games DROP COLUMN series; ALTER TABLE games DROP COLUMN termination",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        let page_size: u64 = conn
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        let root: u64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'games'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (page_size, root)
    };
    assert!(!dir.join("pussa.sqlite3-wal").exists());
    {
        use std::io::{Seek as _, Write as _};
        let mut f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        f.seek(std::io::SeekFrom::Start((root - 1) * page_size))
            .unwrap();
        f.write_all(&[0xff; 64]).unwrap();
    }
    std::fs::remove_file(pussa_server::store::lock_path(&db)).unwrap();
    let before = std::fs::read(&db).unwrap();
    assert_eq!(schema_of(&db), (1, false));
    let e = refusal(&dir).await;
    assert!(
        e.starts_with(&format!(
            "cannot read the database {}: database disk image is malformed",
            db.display()
        )),
        "{e}"
    );
    // The file is as it was: schema 1, which the release that wrote it opens, byte for byte,
    // and no pid file is left.
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file was changed");
    assert_eq!(
        schema_of(&db),
        (1, false),
        "a failed start upgraded the file"
    );
    assert!(!pussa_server::store::lock_path(&db).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_current_database_saved_with_dump_is_marked_not_announced_as_upgraded() {
    let dir = common::temp_dir("store-dump-marker");
    let s = TestServer::start_in(dir.clone()).await;
    for _ in 0..2 {
        let c = s.post("/api/games", &json!({"game": "raja-pasu"})).await;
        assert_eq!(c.status, 201, "{}", c.body);
    }
    s.stop().await;
    let db = dir.join("pussa.sqlite3");
    // `sqlite3 FILE .dump | sqlite3 recovered.sqlite3` keeps the tables and columns but
    // neither user_version nor application_id.
    {
        let conn = Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 0).unwrap();
        conn.pragma_update(None, "application_id", 0).unwrap();
    }
    assert_eq!(schema_of(&db), (0, true));
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: db.clone(),
    };
    let server = pussa_server::Server::bind(&config).await.unwrap();
    let d = db.display();
    assert_eq!(
        server.database().lines(),
        [
            format!(
                "pussa: {d} had the tables of schema 3 without its marker (a copy saved with \
                 .dump): marked as schema 3, nothing upgraded"
            ),
            format!("pussa: 2 games (2 unfinished) in {d}"),
        ]
    );
    drop(server);
    assert_eq!(schema_of(&db), (3, true));
    // A version-1 file that lost its marker the same way is an upgrade from 1, said as such.
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "ALTER TABLE games DROP COLUMN series; ALTER TABLE games DROP COLUMN termination",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 0).unwrap();
        conn.pragma_update(None, "application_id", 0).unwrap();
    }
    let server = pussa_server::Server::bind(&config).await.unwrap();
    assert_eq!(
        server.database().lines()[0],
        format!(
            "pussa: upgraded {d} from schema 1 to 3; earlier pussa builds can no longer open it"
        )
    );
}
