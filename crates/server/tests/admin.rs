//! The server as an admin runs it: backups and readers alongside a running server, the lock
//! that keeps a second server out, other programs' locks, a damaged page, a directory that is
//! not writable, the health check, and a computer move that cannot be stored. A real server on a
//! loopback port.

mod common;

use std::time::{Duration, Instant};

use common::{letters, TestServer};
use rusqlite::Connection;
use serde_json::{json, Value};

/// Why the server refused to start on the database `db`.
async fn refusal(db: std::path::PathBuf) -> String {
    let config = pussa_server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        db: db.clone(),
    };
    match pussa_server::Server::bind(&config).await {
        Ok(_) => panic!("the server opened {}", db.display()),
        Err(e) => format!("{e:#}"),
    }
}

/// A same-screen game of `game` in `mode` with `n` moves played (fewer if it ends): its id.
async fn hotseat_game(s: &TestServer, game: &str, mode: &str, n: usize) -> String {
    let c = s
        .post("/api/games", &json!({"game": game, "mode": mode}))
        .await
        .json();
    let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    let mut state = c["state"].clone();
    for i in 0..n {
        if state["to_move"].is_null() {
            break;
        }
        let legal = letters(&state["legal"]);
        let mv = &legal[i % legal.len()];
        let r = s
            .post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": mv, "token": token}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        state = r.json()["state"].clone();
    }
    id
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_servers_database_can_be_read_and_backed_up_but_not_served_twice() {
    let dir = common::temp_dir("admin-backup");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(hotseat_game(&s, "raja-pasu", "match", 5).await);
    }
    // The games are in the -wal file: only a reader of the WAL database sees them.
    let reader = Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("a reader opens the database of a running server");
    assert_eq!(count(&reader, "SELECT count(*) FROM games"), 3);
    assert_eq!(count(&reader, "SELECT count(*) FROM moves"), 15);
    // An online backup (`VACUUM INTO`, as `sqlite3 .backup` reads) while the server runs.
    let backup = dir.join("backup.sqlite3");
    reader
        .execute("VACUUM INTO ?1", [backup.to_str().unwrap()])
        .expect("VACUUM INTO works against the running server");
    drop(reader);
    // The server still writes after the backup; the backup holds everything acknowledged.
    let more = hotseat_game(&s, "raja-pasu", "match", 2).await;
    let copy = Connection::open(&backup).unwrap();
    assert_eq!(count(&copy, "SELECT count(*) FROM games"), 3);
    assert_eq!(count(&copy, "SELECT count(*) FROM moves"), 15);
    let check: String = copy
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(copy);
    // A second server on the same file is still refused, naming the server that holds it.
    let e = refusal(db.clone()).await;
    assert!(
        e.contains(&format!(
            "another pussa serve (pid {}) is using it",
            std::process::id()
        )),
        "{e}"
    );
    assert!(e.contains("pussa.sqlite3.lock"), "{e}");
    assert_eq!(s.get(&format!("/api/games/{more}")).await.status, 200);
    s.stop().await;
    // Once it has stopped, the next server opens the file (the lock file stays in place).
    assert!(dir.join("pussa.sqlite3.lock").exists());
    let s = TestServer::start_in(dir.clone()).await;
    assert_eq!(s.get(&format!("/api/games/{}", ids[0])).await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_programs_write_lock_is_not_blamed_on_another_server() {
    let dir = common::temp_dir("admin-otherlock");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    hotseat_game(&s, "raja-pasu", "single", 1).await;
    s.stop().await;
    // The sqlite3 shell (or a DB browser) holding a write transaction open.
    let other = Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let e = refusal(db.clone()).await;
    assert!(e.contains("locked by another program"), "{e}");
    assert!(!e.contains("another pussa serve"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    // It may be an older pussa serve still running (those held SQLite's exclusive lock for
    // their whole run): the words say so.
    assert!(
        e.contains("perhaps an older pussa serve still running"),
        "{e}"
    );
    other.execute_batch("COMMIT").unwrap();
    // A reader (an open read transaction) keeps nobody out.
    other
        .execute_batch("BEGIN; SELECT count(*) FROM games;")
        .unwrap();
    let s = TestServer::start_in(dir.clone()).await;
    hotseat_game(&s, "raja-pasu", "single", 1).await;
    s.stop().await;
    other.execute_batch("COMMIT").unwrap();
    drop(other);
    // Another process holding the lock (the sqlite3 shell, where installed) is named by its
    // pid, as /proc/locks gives it.
    #[cfg(target_os = "linux")]
    if let Ok(mut shell) = std::process::Command::new("sqlite3")
        .arg(&db)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::{BufRead as _, Write as _};
        let mut input = shell.stdin.take().unwrap();
        writeln!(input, "BEGIN IMMEDIATE; SELECT 'held';").unwrap();
        let mut line = String::new();
        std::io::BufReader::new(shell.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "held");
        let e = refusal(db.clone()).await;
        drop(input);
        let _ = shell.wait();
        assert!(
            e.contains(&format!(
                "it is locked by another program (pid {}), perhaps an older pussa serve still \
                 running, or one holding a write transaction open such as the sqlite3 shell: \
                 stop or close it first",
                shell.id()
            )),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_database_in_a_directory_that_is_not_writable_names_the_reason() {
    use std::os::unix::fs::PermissionsExt as _;
    let base = common::temp_dir("admin-rodir");
    let ro = base.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes anywhere the permission bits say no: sysfs refuses new files even to root.
    let dir = if std::fs::File::create(ro.join("probe")).is_err() {
        ro.clone()
    } else {
        std::path::PathBuf::from("/sys/fs")
    };
    if std::fs::File::create(dir.join("probe")).is_ok() {
        eprintln!("no directory refuses a new file here: skipped");
        return;
    }
    let db = dir.join("new.sqlite3");
    let e = refusal(db.clone()).await;
    assert!(
        e.starts_with(&format!(
            "cannot open the database {}: its directory {} is not writable",
            db.display(),
            dir.display()
        )),
        "{e}"
    );
    assert!(e.contains("(os error"), "the OS's reason: {e}");
    assert!(!e.contains("unable to open database file"), "{e}");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The pages of the b-tree whose root is `root` that are leaves, in key order (the file is
/// read as it is: no WAL).
fn leaves(file: &[u8], page_size: usize, root: usize) -> Vec<usize> {
    let page = &file[(root - 1) * page_size..root * page_size];
    let head = if root == 1 { 100 } else { 0 };
    match page[head] {
        // Interior (index or table) page: the cells' left children, then the right-most child.
        0x02 | 0x05 => {
            let cells = u16::from_be_bytes([page[head + 3], page[head + 4]]) as usize;
            let mut out = Vec::new();
            for i in 0..cells {
                let at = head + 12 + 2 * i;
                let cell = u16::from_be_bytes([page[at], page[at + 1]]) as usize;
                let child = u32::from_be_bytes(page[cell..cell + 4].try_into().unwrap());
                out.extend(leaves(file, page_size, child as usize));
            }
            let right = u32::from_be_bytes(page[head + 8..head + 12].try_into().unwrap());
            out.extend(leaves(file, page_size, right as usize));
            out
        }
        _ => vec![root],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_page_of_moves_flags_its_games_and_the_server_starts() {
    let dir = common::temp_dir("admin-page");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    // Enough unfinished games and moves for the moves table to span several pages.
    let mut ids = Vec::new();
    for _ in 0..16 {
        ids.push(hotseat_game(&s, "raja-pasu", "match", 24).await);
    }
    s.stop().await;
    let conn = Connection::open(&db).unwrap();
    let unfinished = count(&conn, "SELECT count(*) FROM games WHERE finished IS NULL");
    assert!(unfinished >= 2, "{unfinished} unfinished games");
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'moves'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // The unfinished game stored last in key order: its moves end on the last leaf.
    let (last, first): (String, String) = conn
        .query_row(
            "SELECT max(id), min(id) FROM games WHERE finished IS NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    drop(conn);
    let mut file = std::fs::read(&db).unwrap();
    let page_size = u16::from_be_bytes([file[16], file[17]]) as usize;
    let pages = leaves(&file, page_size, root as usize);
    assert!(pages.len() >= 2, "the moves fill {} page(s)", pages.len());
    // Its header overwritten, as by a bad disk block.
    let damaged = *pages.last().unwrap();
    file[(damaged - 1) * page_size..(damaged - 1) * page_size + 16].fill(0x42);
    std::fs::write(&db, &file).unwrap();

    let s = TestServer::start_in(dir.clone()).await;
    // The game on the damaged page cannot be continued, and says why.
    s.get(&format!("/api/games/{last}")).await.assert_error(
        409,
        "its stored data cannot be read: database disk image is malformed",
    );
    let list = s.get("/api/games?limit=100").await.json();
    let flagged = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == last.as_str())
        .unwrap()["damaged"]
        .clone();
    assert!(flagged.as_str().unwrap().contains("malformed"), "{flagged}");
    // The words say how to save what still reads, in a form Debian 12's sqlite3 (3.40, whose
    // .recover stops at once) runs too.
    let r = s.get(&format!("/api/games/{last}")).await;
    let body = r.json()["error"].as_str().unwrap().to_string();
    let recipe = body
        .split_once("save what still reads with `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(cmd, _)| cmd.to_string())
        .unwrap_or_else(|| panic!("no recipe in {body}"));
    assert!(recipe.starts_with("sqlite3 FILE .dump | "), "{recipe}");
    assert!(recipe.ends_with(" | sqlite3 recovered.sqlite3"), "{recipe}");
    // Another game, whose moves are on a sound page, goes on.
    let st = s.get(&format!("/api/games/{first}")).await;
    assert_eq!(st.status, 200, "{}", st.body);
    s.stop().await;
    // The recipe, run as written (where a sqlite3 shell is installed), saves the games whose
    // pages read, and a server serves the file it makes.
    let shell = std::process::Command::new("sqlite3")
        .arg("--version")
        .output();
    if shell.is_ok_and(|o| o.status.success()) {
        let saved = dir.join("saved");
        std::fs::create_dir(&saved).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(recipe.replace("FILE", &db.to_string_lossy()))
            .current_dir(&saved)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        std::fs::rename(saved.join("recovered.sqlite3"), saved.join("pussa.sqlite3")).unwrap();
        let recovered = Connection::open(saved.join("pussa.sqlite3")).unwrap();
        assert!(
            count(&recovered, "SELECT count(*) FROM games") >= 16,
            "the games' rows were saved"
        );
        drop(recovered);
        let s = TestServer::start_in(saved).await;
        let st = s.get(&format!("/api/games/{first}")).await;
        assert_eq!(st.status, 200, "{}", st.body);
        s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_fails_while_the_database_does_not_accept_a_write() {
    let dir = common::temp_dir("admin-health");
    let s = TestServer::start_in(dir.clone()).await;
    let ok = s.get("/api/health").await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    let v = ok.json();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["database"], "ok");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    // The schema this build reads and writes, to tell builds of one release apart.
    assert_eq!(v["schema"], pussa_server::store::SCHEMA_VERSION);
    assert_eq!(
        s.get("/api/meta").await.json()["schema"],
        pussa_server::store::SCHEMA_VERSION
    );
    // Another program holds the write lock: nothing could be stored, and the check says so
    // (`/api/meta` would still answer 200).
    let other = Connection::open(dir.join("pussa.sqlite3")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    s.get("/api/health").await.assert_error(
        503,
        "the database does not accept a write: database is locked",
    );
    assert_eq!(s.get("/api/meta").await.status, 200);
    other.execute_batch("COMMIT").unwrap();
    assert_eq!(s.get("/api/health").await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_reply_that_cannot_be_stored_is_answered_as_stored_and_tried_again() {
    let dir = common::temp_dir("admin-retry");
    let s = TestServer::start_in(dir.clone()).await;
    let c = s
        .post(
            "/api/games",
            &json!({"game": "raja-pasu", "opponent": {"kind": "computer", "level": "beginner"}}),
        )
        .await
        .json();
    let (id, token) = (c["id"].as_str().unwrap().to_string(), c["token"].clone());
    // The computer's reply (ply 2) cannot be stored, as on a full disk.
    let other = Connection::open(dir.join("pussa.sqlite3")).unwrap();
    other
        .execute_batch(
            "CREATE TRIGGER full BEFORE INSERT ON moves WHEN NEW.ply = 2 \
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
        )
        .unwrap();
    let mv = letters(&c["state"]["legal"])[0].clone();
    let r = s
        .post(
            &format!("/api/games/{id}/moves"),
            &json!({"move": mv, "token": token}),
        )
        .await;
    // The player's move is stored: it is answered as stored, not as a failure.
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["played"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        (v["state"]["ply"].clone(), v["state"]["to_move"].clone()),
        (json!(1), json!("N"))
    );
    // Space again: the computer's move is tried again without a restart.
    other.execute_batch("DROP TRIGGER full").unwrap();
    let t0 = Instant::now();
    let st: Value = loop {
        let st = s.get(&format!("/api/games/{id}")).await.json();
        if st["ply"] == 2 || t0.elapsed() > Duration::from_secs(30) {
            break st;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(st["ply"], 2, "the computer replied once it could: {st}");
    assert_eq!(st["to_move"], "S");
    let stored = count(
        &other,
        &format!("SELECT count(*) FROM moves WHERE game_id = '{id}'"),
    );
    assert_eq!(stored, 2);
    drop(other);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_is_refused_by_a_symlink_a_hard_link_or_without_the_pid_file() {
    let dir = common::temp_dir("admin-links");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    let id = hotseat_game(&s, "raja-pasu", "single", 1).await;
    // The same file by a symlink in another directory (its own `.lock` name there).
    let other = dir.join("other");
    std::fs::create_dir(&other).unwrap();
    std::os::unix::fs::symlink(&db, other.join("pussa.sqlite3")).unwrap();
    let e = refusal(other.join("pussa.sqlite3")).await;
    assert!(e.contains("another pussa serve"), "symlink: {e}");
    assert!(!e.contains('\n'), "{e}");
    // By a hard link.
    let hard = dir.join("hard.sqlite3");
    std::fs::hard_link(&db, &hard).unwrap();
    let e = refusal(hard.clone()).await;
    assert!(e.contains("another pussa serve"), "hard link: {e}");
    // With the pid file removed, as an admin might remove a "stale" lock file.
    std::fs::remove_file(dir.join("pussa.sqlite3.lock")).unwrap();
    let e = refusal(db.clone()).await;
    assert!(e.contains("another pussa serve"), "no pid file: {e}");
    // The first server was not disturbed.
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
    s.stop().await;
    std::fs::remove_file(&hard).unwrap();
    // Once it has stopped, the file opens again by the other path.
    let s = TestServer::start_in(other.clone()).await;
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_checkpoints_even_while_another_program_has_the_database_open() {
    let dir = common::temp_dir("admin-stopwal");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    // The sqlite3 shell, idle at its prompt (no transaction), open the whole time.
    let shell = Connection::open(&db).unwrap();
    assert_eq!(count(&shell, "SELECT count(*) FROM games"), 0);
    for _ in 0..5 {
        hotseat_game(&s, "raja-pasu", "match", 3).await;
    }
    s.stop().await;
    // The -wal file is empty: the database file alone holds every game.
    let wal = dir.join("pussa.sqlite3-wal");
    let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal_len, 0, "the -wal file after the stop");
    let copy_dir = common::temp_dir("admin-stopwal-copy");
    let copy = copy_dir.join("copy.sqlite3");
    std::fs::copy(&db, &copy).unwrap();
    let c = Connection::open(&copy).unwrap();
    assert_eq!(count(&c, "SELECT count(*) FROM games"), 5);
    assert_eq!(count(&c, "SELECT count(*) FROM moves"), 15);
    drop(c);
    drop(shell);
}

/// Overwrites the first 16 bytes of page `page` of the database `db` (checkpointed first), as
/// a bad disk block would.
fn damage_page(db: &std::path::Path, page: usize) {
    let mut file = std::fs::read(db).unwrap();
    let page_size = u16::from_be_bytes([file[16], file[17]]) as usize;
    file[(page - 1) * page_size..(page - 1) * page_size + 16].fill(0x42);
    std::fs::write(db, &file).unwrap();
}

/// The root page of the index of game ids, and its leaves in key order (checkpointed first).
fn id_index_pages(db: &std::path::Path) -> (usize, Vec<usize>) {
    let conn = Connection::open(db).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_games_1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    drop(conn);
    let file = std::fs::read(db).unwrap();
    let page_size = u16::from_be_bytes([file[16], file[17]]) as usize;
    (root as usize, leaves(&file, page_size, root as usize))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_fails_when_the_index_of_game_ids_is_damaged() {
    // The index's only page damaged: no game can be opened or created.
    let dir = common::temp_dir("admin-health-index");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    let id = hotseat_game(&s, "raja-pasu", "single", 2).await;
    assert_eq!(s.get("/api/health").await.status, 200);
    s.stop().await;
    let (root, _) = id_index_pages(&db);
    damage_page(&db, root);
    let s = TestServer::start_in(dir.clone()).await;
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 500);
    s.get("/api/health").await.assert_error(
        503,
        "the database cannot be read: database disk image is malformed",
    );
    s.stop().await;

    // A leaf of a larger index, away from the game stored last: the full read of the index
    // (kept for a minute) finds it.
    let dir = common::temp_dir("admin-health-leaf");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    hotseat_game(&s, "raja-pasu", "single", 1).await;
    s.stop().await;
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("BEGIN").unwrap();
        for i in 0..2000 {
            conn.execute(
                "INSERT INTO games (id, game, mode, first, opponent, creator_seat, created, \
                 finished) VALUES (?1, 'raja-pasu', 'single', 'S', 'hotseat', 'S', 1, 2)",
                [format!("a{i:09}")],
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }
    let (_, leaves) = id_index_pages(&db);
    assert!(leaves.len() >= 3, "the index has {} leaves", leaves.len());
    damage_page(&db, leaves[0]);
    let s = TestServer::start_in(dir.clone()).await;
    s.get("/api/health").await.assert_error(
        503,
        "the database cannot be read: database disk image is malformed",
    );
    s.stop().await;
}

/// Takes the lock earlier releases took (an exclusive `flock` on `pussa.sqlite3.lock`, and no
/// other) as such a server holds it while it runs, with `pid` written in the file: the file,
/// open, is the lock.
fn hold_pid_file_lock(db: &std::path::Path, pid: u32) -> std::fs::File {
    use std::io::Write as _;
    use std::os::unix::io::AsRawFd as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(pussa_server::store::lock_path(db))
        .unwrap();
    writeln!(f, "{pid}").unwrap();
    // SAFETY: flock on a descriptor that lives for the call.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_an_earlier_release_holding_only_the_pid_file_lock_keeps_a_new_one_out() {
    use std::os::unix::io::AsRawFd as _;
    let dir = common::temp_dir("admin-oldlock");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    let id = hotseat_game(&s, "raja-pasu", "single", 3).await;
    s.stop().await;
    // An earlier release serving the file (a process of its own: its pid runs) holds only the
    // pid file's lock.
    let mut old = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let lock = hold_pid_file_lock(&db, old.id());
    let e = refusal(db.clone()).await;
    assert!(
        e.contains(&format!(
            "another pussa serve (pid {}) is using it",
            old.id()
        )),
        "{e}"
    );
    assert!(e.contains("pussa.sqlite3.lock"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    // The running server's pid is left in the file, and nothing was written to the database.
    assert_eq!(
        std::fs::read_to_string(pussa_server::store::lock_path(&db)).unwrap(),
        format!("{}\n", old.id())
    );
    drop(lock);
    let _ = old.kill();
    let _ = old.wait();
    // Once it has stopped, the new one starts; while it runs, an earlier release, which tries
    // only the pid file's lock, is kept out.
    let s = TestServer::start_in(dir.clone()).await;
    assert_eq!(s.get(&format!("/api/games/{id}")).await.status, 200);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(pussa_server::store::lock_path(&db))
        .unwrap();
    // SAFETY: flock on a descriptor that lives for the call.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(r, -1, "the pid file is locked by the running server");
    assert_eq!(
        std::fs::read_to_string(pussa_server::store::lock_path(&db)).unwrap(),
        format!("{}\n", std::process::id())
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_earlier_release_serving_the_file_keeps_a_new_one_out_that_reaches_it_by_a_symlink() {
    let dir = common::temp_dir("admin-oldlock-symlink");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    hotseat_game(&s, "raja-pasu", "single", 1).await;
    s.stop().await;
    // An earlier release serving the file by its own path (it locks `pussa.sqlite3.lock`
    // there, and only that) ...
    let mut old = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let lock = hold_pid_file_lock(&db, old.id());
    // ... and the new one started on a symlink of another name, in another directory.
    let other = common::temp_dir("admin-oldlock-symlink-other");
    let link = other.join("club.sqlite3");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    assert_eq!(
        pussa_server::store::lock_path(&link),
        std::fs::canonicalize(&db)
            .unwrap()
            .with_extension("sqlite3.lock"),
        "a symlink's pid file is the one next to the file it reaches"
    );
    let e = refusal(link.clone()).await;
    assert!(
        e.contains(&format!(
            "another pussa serve (pid {}) is using it (it holds a lock on its pid file",
            old.id()
        )),
        "{e}"
    );
    assert!(!other.join("club.sqlite3.lock").exists());
    drop(lock);
    let _ = old.kill();
    let _ = old.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_of_this_release_is_refused_as_such_not_as_an_earlier_release() {
    let dir = common::temp_dir("admin-same-release");
    let db = dir.join("pussa.sqlite3");
    let s = TestServer::start_in(dir.clone()).await;
    let e = refusal(db.clone()).await;
    assert_eq!(
        e,
        format!(
            "cannot open the database {}: another pussa serve (pid {}) is using it (it holds a \
             lock on the database file itself, by whatever path, symlink or hard link; its pid \
             is in {})",
            db.display(),
            std::process::id(),
            pussa_server::store::lock_path(&db).display()
        )
    );
    // With the pid file removed (a "stale" lock file), the refusal names no file that is gone.
    std::fs::remove_file(pussa_server::store::lock_path(&db)).unwrap();
    let e = refusal(db.clone()).await;
    assert_eq!(
        e,
        format!(
            "cannot open the database {}: another pussa serve is using it (it holds a lock on \
             the database file itself, by whatever path, symlink or hard link)",
            db.display()
        )
    );
    s.stop().await;
}
