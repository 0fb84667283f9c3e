//! SQLite storage: one row per game, one row per move. Every change is one transaction.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension};

/// A game's row (everything but the moves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game id.
    pub id: String,
    /// The rule set's name (`raja-pasu`).
    pub game: String,
    /// `single` or `match`.
    pub mode: String,
    /// `S` or `N`: who moved first in round 1.
    pub first: String,
    /// `computer`, `hotseat` or `online`.
    pub opponent: String,
    /// The computer's level (computer games only).
    pub level: Option<String>,
    /// `S` or `N`: the creator's seat.
    pub creator_seat: String,
    /// South's secret (hotseat: the same secret for both seats).
    pub token_s: Option<String>,
    /// North's secret.
    pub token_n: Option<String>,
    /// The one-use invite for the free seat of an online game (`None` once used).
    pub invite: Option<String>,
    /// Unix seconds.
    pub created: i64,
    /// Unix seconds when the game ended.
    pub finished: Option<i64>,
    /// `S`, `N` or `draw` once finished.
    pub winner: Option<String>,
    /// Moves stored.
    pub ply: i64,
    /// The position string the game started from (imported records), if not the start.
    pub setup: Option<String>,
    /// The id of the rematch of this (finished, online) game, once a player asked for one.
    pub rematch: Option<String>,
    /// How the players ended the game, when they did: `resign`, `abort`, `draw_agreed`,
    /// `claim_win`, `claim_draw`, `round_limit`, `forfeit`, `time` (`None` while it goes on or
    /// when the rules ended it).
    pub ended: Option<String>,
    /// `S` or `N`: who resigned, aborted, claimed, forfeited or lost on time (`None` for a
    /// draw agreed or at the round limit).
    pub ended_by: Option<String>,
    /// The `Termination` text of an imported record that ended by forfeit or on time, as
    /// `pussa tournament` wrote it (exported again as it was); `None` otherwise.
    pub termination: Option<String>,
    /// A rematch's `series` as JSON (`{"game": 3, "score": {"S": 1.5, "N": 0.5}}`), worked out
    /// when the rematch was made from the game before it, so that no chain is ever walked
    /// (`None` for other games, and for rematches stored by an older pussa).
    pub series: Option<String>,
    /// Why the stored row does not read, when one of its fields holds a value of the wrong
    /// type (SQLite lets text into an INTEGER column, a blob anywhere): the first such field,
    /// named (`ply: stored as text, not an integer`). That field holds a placeholder then, and
    /// the game is never continued from it. Always `None` for a row made by the server.
    pub unreadable: Option<String>,
}

/// One stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// 1-based.
    pub ply: i64,
    /// The hole letter.
    pub mv: String,
}

/// The database.
pub struct Store {
    conn: Connection,
    /// The locks taken before the database was opened (see [`take_lock`]). Declared after
    /// `conn`, so they are closed after SQLite's connection: closing a descriptor of the file
    /// drops this process's POSIX locks on it.
    lock: Locks,
    /// The schema version the file had before this store upgraded it, if it did.
    upgraded_from: Option<i32>,
    /// Whether the file had the current tables without the schema marker, which this store
    /// wrote (a file saved with `.dump`).
    marked: bool,
    /// Whether the file held no tables when opened (a new database was made in it).
    created: bool,
    /// Whether the schema written when opening is still in an open transaction
    /// ([`Store::commit_opening`]).
    uncommitted: bool,
}

/// The pid file of the database at `db`: `<db>.lock` (`pussa.sqlite3.lock`) next to the file
/// `db` names, a symlink followed (to the file it reaches, by its canonical path), so that
/// every symlink to one database gives one pid file. It holds the process id of the server
/// that opened the database last, for the message that refuses a second server; it is left in
/// place when the server stops. The server holds a lock (`flock`) on it, as earlier pussa
/// releases did, and on the database file itself (see [`Store::open`]), so that removing this
/// file, or reaching the database by another path (a symlink, a hard link), does not let a
/// second server of this release in, and a release that locks only this file is kept out as
/// well when it reaches the database by the same file name or a symlink (not by a hard link
/// under another name, nor once this file has been removed while the server runs).
#[must_use]
pub fn lock_path(db: &Path) -> std::path::PathBuf {
    let is_symlink = std::fs::symlink_metadata(db).is_ok_and(|m| m.file_type().is_symlink());
    let file = if is_symlink {
        std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf())
    } else {
        db.to_path_buf()
    };
    let mut name = file.into_os_string();
    name.push(".lock");
    std::path::PathBuf::from(name)
}

/// How long opening a database waits for another server to let go of its lock.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The locks an open store holds: the pid file ([`lock_path`]) and the database file itself,
/// each opened once more and locked with an exclusive `flock`.
struct Locks {
    /// The database file's descriptor that holds its lock.
    _db: std::fs::File,
    /// The pid file, locked too, as releases before the lock on the database file locked it.
    pid: std::fs::File,
    /// Its path.
    pid_path: std::path::PathBuf,
    /// Whether the pid file was made by this opening and is to be removed when the locks are
    /// let go before the database was opened (a refused or failed start leaves nothing).
    made: bool,
}

impl Drop for Locks {
    fn drop(&mut self) {
        if self.made {
            let _ = std::fs::remove_file(&self.pid_path);
        }
    }
}

impl Locks {
    /// Writes this process's id to the pid file (once the database is open: a refused start
    /// never overwrites the pid of the server that holds the file).
    fn write_pid(&mut self) {
        use std::io::{Seek as _, Write as _};
        let _ = self.pid.set_len(0);
        let _ = self.pid.seek(std::io::SeekFrom::Start(0));
        let _ = writeln!(self.pid, "{}", std::process::id());
        // The database is open: the pid file stays when the server stops.
        self.made = false;
    }
}

/// The process id written in the pid file at `pid_file`, when that process runs.
fn running_pid(pid_file: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(pid_file).ok()?;
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|&p| process_alive(p))
}

/// Waits up to [`LOCK_WAIT`] for an exclusive `flock` on `file`: a server that is stopping (a
/// restart) lets go within moments, as SQLite waits for its own locks.
fn lock_waiting(file: &std::fs::File) -> Result<bool, OpenError> {
    let t0 = std::time::Instant::now();
    let mut locked = try_lock_exclusive(file)?;
    while !locked && t0.elapsed() < LOCK_WAIT {
        std::thread::sleep(std::time::Duration::from_millis(25));
        locked = try_lock_exclusive(file)?;
    }
    Ok(locked)
}

/// Locks the pid file ([`lock_path`], made when missing) and then the database file at `path`
/// itself (made when missing), each with an exclusive `flock` on a descriptor of its own,
/// before anything else is written; the pid is written only once the database is open
/// ([`Locks::write_pid`]). The lock on the database file belongs to the file (its inode),
/// whatever path reaches it; the lock on the pid file is the one earlier releases took (and
/// only that one), so that such a server, still running, keeps this one out and the other way
/// round. `flock` locks are apart from the
/// POSIX (`fcntl`) locks SQLite takes on the same file, so readers and backups work as with any
/// WAL database. Refused, naming the problem (and the pid of the server that holds either lock,
/// from the pid file), when another pussa serve holds one of them for longer than
/// [`LOCK_WAIT`], or the files cannot be made (a directory that is not writable, with the OS's
/// reason).
fn take_lock(path: &Path) -> Result<Locks, OpenError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let not_writable = |e: &std::io::Error| {
        format!(
            "its directory {} is not writable (the server makes its lock file and SQLite's \
             -wal and -shm files there): {e}",
            dir.display()
        )
    };
    let pid_path = lock_path(path);
    let refused = |pid_path: &Path, what: &str| {
        let by = running_pid(pid_path).map_or(String::new(), |p| format!(" (pid {p})"));
        OpenError::Refused(format!(
            "another pussa serve{by} is using it (it holds {what})"
        ))
    };
    // The lock this release takes on the database file itself, named with where its pid is
    // (when the pid file still names a running process).
    let db_lock_words = |pid_path: &Path| {
        let mut what = "a lock on the database file itself, by whatever path, symlink or hard link"
            .to_string();
        if running_pid(pid_path).is_some() {
            what.push_str(&format!("; its pid is in {}", pid_path.display()));
        }
        what
    };
    // Whether another process holds the lock on the database file itself (a server of this
    // release), tried without waiting and let go at once.
    let db_locked_by_another = || {
        std::fs::File::open(path)
            .ok()
            .and_then(|f| try_lock_exclusive(&f).ok())
            .is_some_and(|locked| !locked)
    };
    // The pid file first, without truncating it: it names the server that holds the lock.
    let existed = pid_path.exists();
    let pid = private(
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .open(&pid_path)
    .map_err(|e| {
        OpenError::Refused(match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                if !existed =>
            {
                not_writable(&e)
            }
            _ => format!("cannot write its lock file {}: {e}", pid_path.display()),
        })
    })?;
    let made = !existed;
    let locks_fail = |e: OpenError| {
        if made {
            let _ = std::fs::remove_file(&pid_path);
        }
        e
    };
    if !lock_waiting(&pid).map_err(locks_fail)? {
        // A server of this release holds the database file's lock too; one that holds only the
        // pid file's is of an earlier release (or one of this release a moment from taking
        // the other).
        let what = if db_locked_by_another() {
            db_lock_words(&pid_path)
        } else {
            format!(
                "a lock on its pid file {} but not on the database file itself, as earlier \
                 releases did",
                pid_path.display()
            )
        };
        // A pid file made now and locked by another already is that server's: left in place.
        return Err(refused(&pid_path, &what));
    }
    // Read-only is enough for `flock`; a missing file is made (as SQLite would make it),
    // readable by its owner only: it holds every seat's token and every unused invite. SQLite
    // gives its `-wal` and `-shm` files the database file's mode. An existing file keeps its
    // mode.
    let db = match std::fs::File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => private(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )
        .open(path),
        r => r,
    }
    .map_err(|e| {
        locks_fail(OpenError::Refused(match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                if !path.exists() =>
            {
                not_writable(&e)
            }
            _ => format!("cannot open it: {e}"),
        }))
    })?;
    if !lock_waiting(&db).map_err(locks_fail)? {
        let e = refused(&pid_path, &db_lock_words(&pid_path));
        return Err(locks_fail(e));
    }
    Ok(Locks {
        _db: db,
        pid,
        pid_path,
        made,
    })
}

/// `options` creating a file readable and writable by its owner only (mode `0600`, or less if
/// the umask takes more away; Unix), as the database and its files are made. A file that
/// exists keeps its mode.
pub fn private(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600)
    }
    #[cfg(not(unix))]
    {
        options
    }
}

/// Whether process `pid` runs (so that a pid file left by a server that has ended names no
/// one).
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

/// Takes an exclusive advisory lock on `file` without waiting: `Ok(false)` when another open
/// file (of this process or another) holds it. The OS drops it when the file is closed, and
/// when the process ends, even by `kill -9`.
#[cfg(unix)]
fn try_lock_exclusive(file: &std::fs::File) -> Result<bool, OpenError> {
    use std::os::unix::io::AsRawFd as _;
    // SAFETY: flock on a file descriptor this function borrows for the call's duration.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        return Ok(false);
    }
    Err(OpenError::Refused(format!("cannot lock it: {e}")))
}

/// The other processes that hold a POSIX (`fcntl`) lock on the database file at `db` or on its
/// `-shm` file, as Linux's `/proc/locks` lists them, those holding a write lock first: SQLite's
/// locks, held by another program's write transaction or by an older pussa serve (which kept
/// SQLite's exclusive lock for its whole run). Empty where `/proc/locks` is not there.
#[must_use]
pub fn sqlite_lock_holders(db: &Path) -> Vec<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt as _;
        let Ok(text) = std::fs::read_to_string("/proc/locks") else {
            return Vec::new();
        };
        let mut shm = db.as_os_str().to_owned();
        shm.push("-shm");
        // `/proc/locks` names a file as MAJOR:MINOR:INODE, the device numbers in hex.
        let ids: Vec<(u64, u64, u64)> = [db.to_path_buf(), std::path::PathBuf::from(shm)]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| {
                let dev = m.dev();
                (
                    u64::from(libc::major(dev)),
                    u64::from(libc::minor(dev)),
                    m.ino(),
                )
            })
            .collect();
        let mut holders: Vec<(bool, u32)> = Vec::new();
        for line in text.lines() {
            // `1: POSIX  ADVISORY  WRITE 9507 08:01:123456 0 EOF`; a waiter's line has `->`.
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 6 || fields[1] == "->" || fields[1] == "FLOCK" {
                continue;
            }
            // This process's own locks (its connection's, as it fails) are not another's.
            let Ok(pid) = fields[4].parse::<u32>() else {
                continue;
            };
            if pid == std::process::id() {
                continue;
            }
            let mut file = fields[5].split(':');
            let (Some(maj), Some(min), Some(ino)) = (file.next(), file.next(), file.next()) else {
                continue;
            };
            let parsed = (
                u64::from_str_radix(maj, 16),
                u64::from_str_radix(min, 16),
                ino.parse::<u64>(),
            );
            let (Ok(maj), Ok(min), Ok(ino)) = parsed else {
                continue;
            };
            if ids.contains(&(maj, min, ino)) {
                let write = fields[3] == "WRITE";
                match holders.iter_mut().find(|(_, p)| *p == pid) {
                    Some(h) => h.0 |= write,
                    None => holders.push((write, pid)),
                }
            }
        }
        holders.sort_by_key(|&(write, _)| !write);
        holders.into_iter().map(|(_, p)| p).collect()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = db;
        Vec::new()
    }
}

/// Elsewhere no advisory lock is taken (SQLite's own locks still keep writers apart).
#[cfg(not(unix))]
fn try_lock_exclusive(_file: &std::fs::File) -> Result<bool, OpenError> {
    Ok(true)
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id           TEXT PRIMARY KEY,
    game         TEXT NOT NULL,
    mode         TEXT NOT NULL,
    first        TEXT NOT NULL,
    opponent     TEXT NOT NULL,
    level        TEXT,
    creator_seat TEXT NOT NULL,
    token_s      TEXT,
    token_n      TEXT,
    invite       TEXT,
    created      INTEGER NOT NULL,
    finished     INTEGER,
    winner       TEXT,
    ply          INTEGER NOT NULL DEFAULT 0,
    setup        TEXT,
    rematch      TEXT,
    ended        TEXT,
    ended_by     TEXT,
    series       TEXT,
    termination  TEXT
);
CREATE INDEX IF NOT EXISTS games_finished ON games(finished);
CREATE TABLE IF NOT EXISTS moves (
    game_id  TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply      INTEGER NOT NULL,
    mv       TEXT NOT NULL,
    created  INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS health (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    checked  INTEGER NOT NULL
);
";

const GAME_COLS: &str = "id, game, mode, first, opponent, level, creator_seat, token_s, token_n, \
                         invite, created, finished, winner, ply, setup, rematch, ended, ended_by, \
                         series, termination";

/// Columns added to `games` after its first release, with their type: a database made before
/// gets them (NULL in every old row) when it is opened.
const ADDED_COLS: &[(&str, &str)] = &[
    ("rematch", "TEXT"),
    ("ended", "TEXT"),
    ("ended_by", "TEXT"),
    ("series", "TEXT"),
    ("termination", "TEXT"),
];

const INSERT_GAME: &str = "INSERT INTO games (id, game, mode, first, opponent, level, \
    creator_seat, token_s, token_n, invite, created, finished, winner, ply, setup, rematch, \
    ended, ended_by, series, termination) \
    VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)";

fn insert_params(g: &GameRow) -> [&dyn rusqlite::ToSql; 20] {
    [
        &g.id,
        &g.game,
        &g.mode,
        &g.first,
        &g.opponent,
        &g.level,
        &g.creator_seat,
        &g.token_s,
        &g.token_n,
        &g.invite,
        &g.created,
        &g.finished,
        &g.winner,
        &g.ply,
        &g.setup,
        &g.rematch,
        &g.ended,
        &g.ended_by,
        &g.series,
        &g.termination,
    ]
}

/// Adds the columns of [`ADDED_COLS`] that the `games` table of an older database lacks.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let have: Vec<String> = {
        let mut st = conn.prepare("SELECT name FROM pragma_table_info('games')")?;
        let names = st.query_map([], |r| r.get(0))?;
        names.collect::<rusqlite::Result<_>>()?
    };
    for (col, ty) in ADDED_COLS {
        if !have.iter().any(|h| h == col) {
            conn.execute_batch(&format!("ALTER TABLE games ADD COLUMN {col} {ty}"))?;
        }
    }
    // The series of a rematch is found by following the links backwards.
    conn.execute_batch("CREATE INDEX IF NOT EXISTS games_rematch ON games(rematch)")?;
    Ok(())
}

/// SQLite's name for the storage class of a value, as a message says it.
fn type_words(v: ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "an integer",
        ValueRef::Real(_) => "a real number",
        ValueRef::Text(_) => "text",
        ValueRef::Blob(_) => "a blob",
    }
}

/// Reads the fields of one stored row leniently: a field of the wrong type (or a text that is
/// not UTF-8) is not an error of the whole query but the row's [`GameRow::unreadable`]
/// reason, so that one damaged row never hides the others.
struct Lenient<'a, 'r> {
    row: &'a rusqlite::Row<'r>,
    why: Option<String>,
}

impl Lenient<'_, '_> {
    fn bad(&mut self, name: &str, what: String) {
        if self.why.is_none() {
            self.why = Some(format!("{name}: {what}"));
        }
    }

    fn opt_text(&mut self, i: usize, name: &str) -> rusqlite::Result<Option<String>> {
        match self.row.get_ref(i)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(b) => match std::str::from_utf8(b) {
                Ok(t) => Ok(Some(t.to_string())),
                Err(_) => {
                    self.bad(name, "stored as text that is not UTF-8".into());
                    Ok(Some(String::from_utf8_lossy(b).into_owned()))
                }
            },
            v => {
                self.bad(name, format!("stored as {}, not text", type_words(v)));
                // A placeholder: an id still shows in the list as near as it can be.
                Ok(Some(match v {
                    ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                    _ => String::new(),
                }))
            }
        }
    }

    fn text(&mut self, i: usize, name: &str) -> rusqlite::Result<String> {
        let v = self.opt_text(i, name)?;
        Ok(v.unwrap_or_else(|| {
            self.bad(name, "missing (NULL)".into());
            String::new()
        }))
    }

    fn opt_int(&mut self, i: usize, name: &str) -> rusqlite::Result<Option<i64>> {
        match self.row.get_ref(i)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(n) => Ok(Some(n)),
            v => {
                self.bad(name, format!("stored as {}, not an integer", type_words(v)));
                Ok(Some(0))
            }
        }
    }

    fn int(&mut self, i: usize, name: &str) -> rusqlite::Result<i64> {
        let v = self.opt_int(i, name)?;
        Ok(v.unwrap_or_else(|| {
            self.bad(name, "missing (NULL)".into());
            0
        }))
    }
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    let mut l = Lenient { row: r, why: None };
    let mut g = GameRow {
        id: l.text(0, "id")?,
        game: l.text(1, "game")?,
        mode: l.text(2, "mode")?,
        first: l.text(3, "first")?,
        opponent: l.text(4, "opponent")?,
        level: l.opt_text(5, "level")?,
        creator_seat: l.text(6, "creator_seat")?,
        token_s: l.opt_text(7, "token_s")?,
        token_n: l.opt_text(8, "token_n")?,
        invite: l.opt_text(9, "invite")?,
        created: l.int(10, "created")?,
        finished: l.opt_int(11, "finished")?,
        winner: l.opt_text(12, "winner")?,
        ply: l.int(13, "ply")?,
        setup: l.opt_text(14, "setup")?,
        rematch: l.opt_text(15, "rematch")?,
        ended: l.opt_text(16, "ended")?,
        ended_by: l.opt_text(17, "ended_by")?,
        series: l.opt_text(18, "series")?,
        termination: l.opt_text(19, "termination")?,
        unreadable: None,
    };
    g.unreadable = l.why;
    Ok(g)
}

/// The `PRAGMA application_id` of a pussa database (`puss` in ASCII).
pub const APPLICATION_ID: i32 = 0x7075_7373;
/// The schema version this pussa writes (`PRAGMA user_version`). An older database (0: made
/// before the marker; 1: before `series` and the `round_limit` ending; 2: before
/// `termination` and the `forfeit` and `time` endings) is upgraded in place
/// when opened (one without the marker, as `.dump` saves it, has the version its columns say).
/// A database with a higher version was written by a newer pussa and is refused,
/// so a change that older builds would misread (a new column they would not fill, a new
/// `ended` value they would call damaged) raises it.
///
/// - 1: the schema marker, with the `rematch`, `ended` and `ended_by` columns.
/// - 2: the `series` column (a rematch's score so far) and the `round_limit` ending.
/// - 3: the `termination` column (an imported forfeit's or time loss's `Termination` text) and
///   the `forfeit` and `time` endings.
pub const SCHEMA_VERSION: i32 = 3;

/// The columns every pussa `games` table has had since the first release.
const BASE_COLS: &[&str] = &[
    "id",
    "game",
    "mode",
    "first",
    "opponent",
    "level",
    "creator_seat",
    "created",
    "finished",
    "winner",
    "ply",
];

/// Why a database was not opened.
#[derive(Debug)]
pub enum OpenError {
    /// SQLite's own error (busy, not a database, I/O).
    Sqlite(rusqlite::Error),
    /// The file is a database, but not one this pussa may use: another application's, a newer
    /// pussa's, or a damaged one. The message says which, in one line.
    Refused(String),
    /// Another program holds SQLite's lock on the file (`database is locked`): the processes
    /// that hold it, as [`sqlite_lock_holders`] found them when it was met (empty where the OS
    /// does not say).
    Locked(Vec<u32>),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Sqlite(e) => write!(f, "{e}"),
            OpenError::Refused(why) => f.write_str(why),
            OpenError::Locked(_) => f.write_str("database is locked"),
        }
    }
}

// No `source`: the message already says SQLite's error, and a chain (`{:#}`) would repeat it
// two or three times over (`file is not a database: file is not a database: Error code 26: …`).
impl std::error::Error for OpenError {}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> OpenError {
        OpenError::Sqlite(e)
    }
}

impl OpenError {
    /// SQLite's error code, for a SQLite error.
    #[must_use]
    pub fn sqlite_error_code(&self) -> Option<rusqlite::ErrorCode> {
        match self {
            OpenError::Sqlite(e) => e.sqlite_error_code(),
            OpenError::Locked(_) => Some(rusqlite::ErrorCode::DatabaseBusy),
            OpenError::Refused(_) => None,
        }
    }
}

/// What to do about a damaged database file, as the messages say it. `.dump` works with every
/// sqlite3 shell (Debian 12's 3.40 stops at once on `.recover`); on a damaged file it ends its
/// output with `ROLLBACK; -- due to errors`, which would throw away everything it saved, hence
/// the `sed` that commits instead.
pub const RECOVER: &str = "restore it from a backup, or, with the server stopped, save what \
                           still reads with `sqlite3 FILE .dump | sed 's/^ROLLBACK; -- due to \
                           errors$/COMMIT;/' | sqlite3 recovered.sqlite3` (or .recover instead \
                           of .dump, with a sqlite3 that supports it) and serve that";

/// SQLite's error in one line, as an admin reads it: a damaged file (`database disk image is
/// malformed`) says what to do about it.
#[must_use]
pub fn sqlite_words(e: &rusqlite::Error) -> String {
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) {
        return format!(
            "database disk image is malformed (part of the file is damaged: {RECOVER})"
        );
    }
    e.to_string()
}

/// An SQLite "database disk image is malformed" error with `why` as its message.
fn corrupt(why: String) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("database disk image is malformed: {why}")),
    )
}

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The oldest SQLite the server's queries run on: 3.30 (aggregate `FILTER` clauses; upserts
/// are older). The bundled copy (the default feature `bundled-sqlite`) is always newer; a build
/// that links the system's library (`--no-default-features`) may meet an older one.
pub const MIN_SQLITE: i32 = 3_030_000;

/// Refuses an SQLite library older than [`MIN_SQLITE`] (`number` as
/// `rusqlite::version_number` gives it, `text` as `rusqlite::version`), before any file is
/// touched: its first query would otherwise fail with a syntax error far from the cause.
fn check_sqlite_version(number: i32, text: &str) -> Result<(), OpenError> {
    if number >= MIN_SQLITE {
        return Ok(());
    }
    Err(OpenError::Refused(format!(
        "the SQLite library this pussa is linked with is {text}, older than 3.30, which the \
         server's queries need: upgrade the system's libsqlite3, or build pussa with its bundled \
         SQLite (the default feature `bundled-sqlite`)"
    )))
}

/// Refuses, before SQLite opens it (opening may write a journal next to it), a `path` that
/// exists but is not a regular file (a device, a FIFO, a directory) or a file of other data.
/// A missing or empty file is a new database.
fn check_file(path: &Path) -> Result<(), OpenError> {
    use std::io::Read as _;
    // Missing (created), or unreadable: SQLite's own error says which.
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if !meta.is_file() {
        return Err(OpenError::Refused(format!(
            "not a regular file (it is {})",
            file_kind(&meta)
        )));
    }
    if meta.len() == 0 {
        return Ok(());
    }
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(());
    };
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    if file
        .take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        return Ok(());
    }
    if head != SQLITE_HEADER {
        return Err(OpenError::Refused(
            "not an SQLite database (its first bytes are not an SQLite header)".into(),
        ));
    }
    Ok(())
}

/// What a file that is not a regular file is, in words.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    if meta.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Checks, before anything is written, that `conn` is an empty database, a pussa database of
/// this schema version or older, or a pussa database made before the schema marker (tables
/// `games` and `moves`, with the original columns).
/// Answers the file's schema version and whether it holds no tables yet (a new database).
fn check_identity(conn: &Connection) -> Result<(i32, bool), OpenError> {
    let app_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables: Vec<String> = {
        let mut st = conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name",
        )?;
        let names = st.query_map([], |r| r.get(0))?;
        names.collect::<rusqlite::Result<_>>()?
    };
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(OpenError::Refused(format!(
            "not a pussa database (its application_id is {app_id:#010x})"
        )));
    }
    if version > SCHEMA_VERSION {
        return Err(OpenError::Refused(format!(
            "written by a newer pussa (schema version {version}; this pussa reads up to \
             {SCHEMA_VERSION}): run a pussa that reads schema {version} (`pussa --version` \
             says which schema a build reads), or restore the backup made before the upgrade"
        )));
    }
    if tables.is_empty() {
        return Ok((version, true));
    }
    let has = |t: &str| tables.iter().any(|n| n == t);
    let listed = || crate::util::cut(&tables.join(", "), 200).to_string();
    let games_cols: Vec<String> = {
        let mut st = conn.prepare("SELECT name FROM pragma_table_info('games')")?;
        let names = st.query_map([], |r| r.get(0))?;
        names.collect::<rusqlite::Result<_>>()?
    };
    let pussa_games = BASE_COLS.iter().all(|c| games_cols.iter().any(|h| h == c));
    if app_id == 0 && !pussa_games {
        return Err(OpenError::Refused(format!(
            "not a pussa database (it has tables {})",
            listed()
        )));
    }
    if !pussa_games {
        return Err(OpenError::Refused(
            "a damaged pussa database: its games table is missing or lacks columns".into(),
        ));
    }
    if !has("moves") {
        let games: i64 = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?;
        if games > 0 {
            return Err(OpenError::Refused(format!(
                "a damaged pussa database: it holds {games} game(s) but no moves table"
            )));
        }
    }
    Ok((version, false))
}

/// A database file locked and checked by [`Store::prepare`], not yet written to.
pub struct Opening {
    conn: Connection,
    path: std::path::PathBuf,
    lock: Locks,
    version: i32,
    empty: bool,
}

impl Opening {
    /// The file's schema version (`PRAGMA user_version`; 0 for a new file or one made before
    /// the marker).
    #[must_use]
    pub fn schema_version(&self) -> i32 {
        self.version
    }

    /// Whether the file holds no tables (a new database is made in it).
    #[must_use]
    pub fn is_new(&self) -> bool {
        self.empty
    }

    /// Puts the database in WAL mode and, in a transaction left open, makes its tables (or
    /// upgrades an older schema in place) and marks it as a pussa database of
    /// [`SCHEMA_VERSION`]. Nothing of that is in the file until [`Store::commit_opening`]: a
    /// start that fails before it (a damaged table read when the games are restored) leaves the
    /// file's schema as it was, which the release that wrote it still opens. The pid file is
    /// written by the commit too.
    ///
    /// # Errors
    /// SQLite's error (another program holding a write transaction open, an I/O error, a full
    /// disk, the file size limit), named as [`Store`]'s writes name them.
    pub fn finish(self) -> Result<Store, OpenError> {
        let Opening {
            conn,
            path,
            lock,
            version,
            empty,
        } = self;
        let marker = version;
        // A file without the marker: its columns say which schema it has.
        let version = if !empty && version == 0 {
            schema_by_columns(&conn).unwrap_or(0)
        } else {
            version
        };
        let current = !empty && marker == 0 && version == SCHEMA_VERSION;
        match Opening::write_schema(&conn) {
            Ok(()) => {
                private_side_files(&path);
                Ok(Store {
                    conn,
                    lock,
                    upgraded_from: (!empty && version < SCHEMA_VERSION).then_some(version),
                    marked: current,
                    created: empty,
                    uncommitted: true,
                })
            }
            Err(e) => {
                let e = locked(&path, OpenError::Sqlite(os_cause(&conn, e)));
                // Rolls back whatever was written of the schema.
                drop(conn);
                drop(lock);
                Err(e)
            }
        }
    }

    fn write_schema(conn: &Connection) -> rusqlite::Result<()> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // WAL + NORMAL: a commit survives the process being killed (kill -9); only a power
        // loss can take back the last commits.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // The schema (and an upgrade) in one transaction, committed by
        // `Store::commit_opening` once the games have been read.
        conn.execute_batch("BEGIN IMMEDIATE")?;
        conn.execute_batch(SCHEMA)?;
        migrate(conn)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        Ok(())
    }
}

/// Makes SQLite's `-wal` and `-shm` files of the database at `path` readable and writable by
/// their owner only (`0600`) when their group or others may read them: SQLite gives them the
/// database file's mode, `0644` for one made by an older pussa, and the `-wal` file holds
/// every new seat's token until a checkpoint. The server, which made them (or left them, when
/// it was killed), owns them; the database file's own mode stays the admin's (warned about at
/// start). Called once the database is in WAL mode, so both files exist; they stay until the
/// server closes the database. A file that cannot be changed (not ours) is left as it is.
fn private_side_files(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        for suffix in ["-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let side = Path::new(&name);
            let Ok(meta) = std::fs::symlink_metadata(side) else {
                continue;
            };
            if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
                let mode = meta.permissions().mode() & 0o700 | 0o600;
                if let Err(e) =
                    std::fs::set_permissions(side, std::fs::Permissions::from_mode(mode))
                {
                    tracing::warn!("cannot make {} its owner's only: {e}", side.display());
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// The schema version a file without the schema marker (`user_version` 0) has by its
/// `games` table's columns: [`SCHEMA_VERSION`] with every column, 2 with those of version 2
/// (up to `series`), 1 with those of version 1 (`rematch`, `ended`, `ended_by`), else 0 (made
/// before the marker). A file saved with
/// `sqlite3 FILE .dump` keeps its tables and columns but neither `user_version` nor
/// `application_id`, so the columns say which schema it has.
fn schema_by_columns(conn: &Connection) -> rusqlite::Result<i32> {
    let mut st = conn.prepare("SELECT name FROM pragma_table_info('games')")?;
    let names: Vec<String> = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let has = |col: &str| names.iter().any(|n| n == col);
    Ok(if ADDED_COLS.iter().all(|(col, _)| has(col)) {
        SCHEMA_VERSION
    } else if ["rematch", "ended", "ended_by", "series"]
        .into_iter()
        .all(has)
    {
        2
    } else if ["rematch", "ended", "ended_by"].into_iter().all(has) {
        1
    } else {
        0
    })
}

/// `e`, when it is SQLite's `database is locked`, as [`OpenError::Locked`] with the processes
/// holding the lock on the file at `path`.
fn locked(path: &Path, e: OpenError) -> OpenError {
    match e {
        OpenError::Sqlite(s)
            if s.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) =>
        {
            OpenError::Locked(sqlite_lock_holders(path))
        }
        e => e,
    }
}

/// `e` with its cause named when the OS's error behind it was the process's file size limit
/// (`EFBIG`, `ulimit -f`, systemd `LimitFSIZE=`), which SQLite reports only as `disk I/O
/// error`.
fn os_cause(conn: &Connection, e: rusqlite::Error) -> rusqlite::Error {
    #[cfg(unix)]
    if let rusqlite::Error::SqliteFailure(code, _) = &e {
        if code.code == rusqlite::ErrorCode::SystemIoFailure {
            // SAFETY: the handle is only read by sqlite3_system_errno, on this thread, while
            // `conn` is borrowed.
            let errno = unsafe { rusqlite::ffi::sqlite3_system_errno(conn.handle()) };
            if errno == libc::EFBIG {
                return rusqlite::Error::SqliteFailure(*code, Some(FILE_TOO_LARGE.to_string()));
            }
            // SQLite does not always keep the OS's error (growing the -shm file at open): a
            // write that failed under a file size limit is most likely that limit.
            let writes = [
                rusqlite::ffi::SQLITE_IOERR_WRITE,
                rusqlite::ffi::SQLITE_IOERR_SHMSIZE,
                rusqlite::ffi::SQLITE_IOERR_TRUNCATE,
            ];
            if let Some(limit) = file_size_limit().filter(|_| writes.contains(&code.extended_code))
            {
                return rusqlite::Error::SqliteFailure(
                    *code,
                    Some(format!(
                        "disk I/O error: a write failed, most likely at the process's file size \
                         limit of {limit} bytes (ulimit -f, systemd LimitFSIZE=)"
                    )),
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = conn;
    e
}

/// The process's file size limit in bytes (`RLIMIT_FSIZE`), when it has one.
#[cfg(unix)]
#[allow(clippy::useless_conversion)] // rlim_t is u64 on most systems, not all.
fn file_size_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &raw mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(u64::from(lim.rlim_cur))
}

/// How a write refused by the process's file size limit (`EFBIG`) is named.
pub const FILE_TOO_LARGE: &str = "file too large (the process's file size limit: ulimit -f, \
                                  systemd LimitFSIZE=)";

impl Store {
    /// Opens (creating if needed) the database file, in WAL mode, and its tables, and marks it
    /// as a pussa database of [`SCHEMA_VERSION`] (`PRAGMA application_id` and `user_version`).
    ///
    /// # Errors
    /// [`OpenError::Refused`] for a path that is not a regular file (a device, a FIFO, a
    /// directory), a file that is not an SQLite database, another application's database, one
    /// written by a newer pussa, or a pussa database missing its moves table while it holds
    /// games; [`OpenError::Sqlite`] when the file cannot be opened or read otherwise (another
    /// server holds it, a damaged database). Nothing is written to (or next to) a refused file.
    ///
    /// One server per file: the store holds an exclusive `flock` on the database file itself
    /// for as long as it is open, so a second store on the same file is refused whatever path
    /// reaches it (a symlink, a hard link), and removing the pid file ([`lock_path`]) changes
    /// nothing; it also holds one on the pid file, the lock earlier releases took (and only
    /// that), so that a server of such a release and this one keep each other out. Both are
    /// taken before anything is written, and the pid is written only once the database is
    /// open. The lock is on an extra descriptor of the file; as POSIX drops a process's
    /// `fcntl` locks on a file when any descriptor of it is closed, the store closes it only
    /// after SQLite's connection. (On NFS, Linux turns `flock` into `fcntl` locks: keep the
    /// database on a local disk, as SQLite asks anyway.)
    pub fn open(path: &Path) -> Result<Store, OpenError> {
        let mut store = Store::prepare(path)?.finish()?;
        store.commit_opening()?;
        Ok(store)
    }

    /// Reads what a server reads first when it starts (the unfinished games' rows, through
    /// [`Store::unfinished`]), still in the transaction [`Opening::finish`] opened, and only
    /// then commits the schema it wrote (an upgrade, for good) and writes the pid file: a file
    /// whose games cannot be read (a damaged page of the games table or its index) is left as
    /// it was, schema and pid file, as is one whose start fails before this (a store dropped
    /// before it rolls the schema back). Nothing is done the second time.
    ///
    /// # Errors
    /// SQLite's error reading the games (`database disk image is malformed`) or committing (an
    /// I/O error, a full disk, the file size limit); the schema is not committed then.
    pub fn commit_opening(&mut self) -> rusqlite::Result<()> {
        if !self.uncommitted {
            return Ok(());
        }
        self.unfinished()?;
        self.writing(|conn| conn.execute_batch("COMMIT"))?;
        self.uncommitted = false;
        self.lock.write_pid();
        Ok(())
    }

    /// The first half of [`Store::open`]: takes the locks and checks what the file is, writing
    /// nothing to it (a missing file is made empty, as is the pid file), so that a caller can
    /// make sure of everything else it needs (its listening address) before
    /// [`Opening::finish`] writes the schema, upgrading an older one in place for good.
    ///
    /// # Errors
    /// As [`Store::open`], but for the errors of writing the schema.
    pub fn prepare(path: &Path) -> Result<Opening, OpenError> {
        check_sqlite_version(rusqlite::version_number(), rusqlite::version())?;
        check_file(path)?;
        // One server per file: the games live in its memory too, so a second server on the same
        // file would diverge. A lock on the database file itself keeps it out (by any path),
        // and one on the pid file keeps out (and is kept out by) an earlier release, which
        // locked only that; SQLite's own locks stay the normal ones, so that readers and
        // backups (`sqlite3 .backup`, `VACUUM INTO`) work alongside.
        let lock = take_lock(path)?;
        let checked = Connection::open(path)
            .map_err(OpenError::from)
            .and_then(|conn| {
                // Readers and backups never block a write in WAL mode; another program's write
                // transaction does, for a second at most, and then the write fails (`database
                // is locked`).
                conn.busy_timeout(std::time::Duration::from_secs(1))?;
                let (version, empty) = check_identity(&conn).map_err(|e| match e {
                    // Reading a WAL database writes its -shm file.
                    OpenError::Sqlite(e) => OpenError::Sqlite(os_cause(&conn, e)),
                    other => other,
                })?;
                Ok((conn, version, empty))
            });
        match checked {
            Ok((conn, version, empty)) => Ok(Opening {
                conn,
                path: path.to_path_buf(),
                lock,
                version,
                empty,
            }),
            Err(e) => {
                // Who holds SQLite's lock is read while this process's own descriptors of the
                // file are open: closing one drops every POSIX lock the process holds on it.
                let e = locked(path, e);
                // Nothing is left next to a file that is refused (the lock is still held here).
                drop(lock);
                Err(e)
            }
        }
    }

    /// The schema version the file had before this store upgraded it (`Some(1)`), when it did.
    #[must_use]
    pub fn upgraded_from(&self) -> Option<i32> {
        self.upgraded_from
    }

    /// Whether the file had the current tables and columns but no schema marker (a file saved
    /// with `sqlite3 FILE .dump`, which keeps neither `user_version` nor `application_id`):
    /// the marker was written, nothing was upgraded.
    #[must_use]
    pub fn marked(&self) -> bool {
        self.marked
    }

    /// Whether the file held no tables when it was opened: a new database was made in it.
    #[must_use]
    pub fn created(&self) -> bool {
        self.created
    }

    /// How many games are stored, and how many of them are unfinished.
    ///
    /// # Errors
    /// SQLite's error.
    pub fn counts(&self) -> rusqlite::Result<(u64, u64)> {
        self.conn.query_row(
            "SELECT count(*), count(*) FILTER (WHERE finished IS NULL) FROM games",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// Runs a write on the connection; an I/O error caused by the process's file size limit
    /// (`EFBIG`) is named as such (SQLite says only `disk I/O error`).
    fn writing<T>(
        &mut self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let r = f(&mut self.conn);
        r.map_err(|e| os_cause(&self.conn, e))
    }

    /// Writes the time of this check to the one row of the `health` table, in a transaction of
    /// its own, as a move would be written: whether the database accepts a write now
    /// (`GET /api/health`).
    ///
    /// # Errors
    /// The write's error (`database or disk is full`, `database is locked`, an I/O error).
    pub fn check_write(&mut self) -> rusqlite::Result<()> {
        self.writing(|conn| {
            conn.execute(
                "INSERT INTO health (id, checked) VALUES (1, ?1) \
                 ON CONFLICT (id) DO UPDATE SET checked = excluded.checked",
                [crate::util::now_unix()],
            )?;
            Ok(())
        })
    }

    /// Reads through what serving a game needs, cheaply (a few pages): the game stored last,
    /// found again through the index of game ids (as every request for a game finds its
    /// game), and its moves. `GET /api/health` calls it on every check.
    ///
    /// # Errors
    /// SQLite's error (`database disk image is malformed`, an I/O error); a game the index
    /// does not find is reported as a malformed database.
    pub fn check_read(&self) -> rusqlite::Result<()> {
        let last: Option<String> = self
            .conn
            .query_row(
                "SELECT id FROM games ORDER BY rowid DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let Some(id) = last else {
            return Ok(());
        };
        let found: i64 = self.conn.query_row(
            "SELECT count(*) FROM games INDEXED BY sqlite_autoindex_games_1 WHERE id = ?1",
            [&id],
            |r| r.get(0),
        )?;
        if found != 1 {
            return Err(corrupt(format!(
                "the index of game ids does not find game {id}"
            )));
        }
        self.conn.query_row(
            "SELECT count(*) FROM (SELECT ply FROM moves WHERE game_id = ?1 LIMIT 100000)",
            [&id],
            |r| r.get::<_, i64>(0),
        )?;
        Ok(())
    }

    /// Reads the whole of the indexes every game request goes through (the games' ids, the
    /// unfinished games), a page of each leaf: costlier than [`Store::check_read`] (in
    /// proportion to the number of games, about a millisecond per ten thousand), so
    /// `GET /api/health` runs it at most once every [`crate::app::HEALTH_SCAN_EVERY`].
    ///
    /// # Errors
    /// SQLite's error (`database disk image is malformed`, an I/O error); indexes that do not
    /// agree with the table on the number of games are reported as a malformed database.
    pub fn check_indexes(&self) -> rusqlite::Result<()> {
        let count = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0));
        let by_ids =
            count("SELECT count(*) FROM games INDEXED BY sqlite_autoindex_games_1 WHERE id >= ''")?;
        let by_finished = count(
            "SELECT count(*) FROM games INDEXED BY games_finished \
             WHERE finished IS NULL OR finished IS NOT NULL",
        )?;
        if by_ids != by_finished {
            return Err(corrupt(format!(
                "the indexes of the games disagree ({by_ids} game ids, {by_finished} by end)"
            )));
        }
        Ok(())
    }

    /// Moves every commit from the `-wal` file into the database file and empties the `-wal`
    /// file (`PRAGMA wal_checkpoint(TRUNCATE)`), as the server does when it stops, so that the
    /// database file alone holds every game even while another program (the `sqlite3` shell, a
    /// reader) keeps the database open. Answers whether it was complete: not when another
    /// program's transaction was reading or writing then (the rest stays in the `-wal` file,
    /// where every reader still finds it).
    ///
    /// # Errors
    /// SQLite's error (an I/O error, a full disk).
    pub fn checkpoint(&mut self) -> rusqlite::Result<bool> {
        self.writing(|conn| {
            let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
            Ok(busy == 0)
        })
    }

    /// Stores a new game.
    ///
    /// # Errors
    /// On a database error (e.g. a duplicate id).
    pub fn insert_game(&mut self, g: &GameRow) -> rusqlite::Result<()> {
        self.writing(|conn| {
            conn.execute(INSERT_GAME, &insert_params(g)[..])?;
            Ok(())
        })
    }

    /// Stores a new game together with its first moves, in one transaction.
    ///
    /// # Errors
    /// On a database error; nothing is stored then.
    pub fn insert_game_with_moves(
        &mut self,
        g: &GameRow,
        moves: &[String],
    ) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let tx = conn.transaction()?;
            tx.execute(INSERT_GAME, &insert_params(g)[..])?;
            {
                let mut st = tx.prepare_cached(
                    "INSERT INTO moves (game_id, ply, mv, created) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (i, mv) in moves.iter().enumerate() {
                    st.execute(params![g.id, i as i64 + 1, mv, g.created])?;
                }
            }
            tx.commit()
        })
    }

    /// Appends moves `first_ply..` and updates the game's ply and result, in one transaction.
    ///
    /// # Errors
    /// On a database error (including a ply that is already stored); nothing is stored then.
    pub fn append_moves(
        &mut self,
        id: &str,
        first_ply: i64,
        moves: &[String],
        finished: Option<i64>,
        winner: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let now = crate::util::now_unix();
            let tx = conn.transaction()?;
            {
                let mut st = tx.prepare_cached(
                    "INSERT INTO moves (game_id, ply, mv, created) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (i, mv) in moves.iter().enumerate() {
                    st.execute(params![id, first_ply + i as i64, mv, now])?;
                }
            }
            let n = tx.execute(
                "UPDATE games SET ply = ?2, finished = ?3, winner = ?4 WHERE id = ?1",
                params![id, first_ply + moves.len() as i64 - 1, finished, winner],
            )?;
            if n != 1 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            tx.commit()
        })
    }

    /// Deletes every move after `keep_ply` and updates the game, in one transaction.
    ///
    /// # Errors
    /// On a database error; nothing changes then.
    pub fn truncate_moves(&mut self, id: &str, keep_ply: i64) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let tx = conn.transaction()?;
            tx.execute(
                "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2",
                params![id, keep_ply],
            )?;
            tx.execute(
                "UPDATE games SET ply = ?2, finished = NULL, winner = NULL WHERE id = ?1",
                params![id, keep_ply],
            )?;
            tx.commit()
        })
    }

    /// Stores `new`, the rematch of game `old`, and links `old` to it, in one transaction: either
    /// both or neither. Refused (nothing stored) when `old` is unknown or already has a rematch.
    ///
    /// # Errors
    /// On a database error, [`rusqlite::Error::QueryReturnedNoRows`] when `old` is unknown or
    /// already linked.
    pub fn insert_rematch(&mut self, old: &str, new: &GameRow) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let tx = conn.transaction()?;
            tx.execute(INSERT_GAME, &insert_params(new)[..])?;
            let n = tx.execute(
                "UPDATE games SET rematch = ?2 WHERE id = ?1 AND rematch IS NULL",
                params![old, new.id],
            )?;
            if n != 1 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            tx.commit()
        })
    }

    /// Ends a game the players ended (resigned, aborted, agreed, claimed): its ending, when,
    /// and the winner (`S`, `N`, `draw`, or `None` for an aborted game).
    ///
    /// # Errors
    /// On a database error, [`rusqlite::Error::QueryReturnedNoRows`] for an unknown game.
    pub fn end_game(
        &mut self,
        id: &str,
        kind: &str,
        by: Option<&str>,
        finished: i64,
        winner: Option<&str>,
    ) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let n = conn.execute(
                "UPDATE games SET ended = ?2, ended_by = ?3, finished = ?4, winner = ?5 WHERE id = ?1",
                params![id, kind, by, finished, winner],
            )?;
            if n != 1 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            Ok(())
        })
    }

    /// The game whose rematch is `id`, if any.
    ///
    /// # Errors
    /// On a database error.
    pub fn rematch_of(&self, id: &str) -> rusqlite::Result<Option<GameRow>> {
        self.conn
            .query_row(
                &format!("SELECT {GAME_COLS} FROM games WHERE rematch = ?1 LIMIT 1"),
                [id],
                game_row,
            )
            .optional()
    }

    /// Gives the free seat to a player: sets its token and spends the invite.
    ///
    /// # Errors
    /// On a database error.
    pub fn take_seat(&mut self, id: &str, seat: char, token: &str) -> rusqlite::Result<()> {
        self.writing(|conn| {
            let col = if seat == 'S' { "token_s" } else { "token_n" };
            conn.execute(
                &format!("UPDATE games SET {col} = ?2, invite = NULL WHERE id = ?1"),
                params![id, token],
            )?;
            Ok(())
        })
    }

    /// A game's row.
    ///
    /// # Errors
    /// On a database error.
    pub fn game(&self, id: &str) -> rusqlite::Result<Option<GameRow>> {
        self.conn
            .query_row(
                &format!("SELECT {GAME_COLS} FROM games WHERE id = ?1"),
                [id],
                game_row,
            )
            .optional()
    }

    /// A game's moves in order. The inner error names the first stored move whose fields do
    /// not read (`move 3: mv: stored as a blob, not text`): the game cannot be rebuilt then.
    ///
    /// # Errors
    /// On a database error.
    pub fn moves(&self, id: &str) -> rusqlite::Result<Result<Vec<MoveRow>, String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT ply, mv FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let mut rows = st.query([id])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut l = Lenient { row: r, why: None };
            let ply = l.int(0, "ply")?;
            let mv = l.text(1, "mv")?;
            if let Some(why) = l.why {
                return Ok(Err(format!("move {}: {why}", out.len() + 1)));
            }
            out.push(MoveRow { ply, mv });
        }
        Ok(Ok(out))
    }

    /// Every unfinished game.
    ///
    /// # Errors
    /// On a database error.
    pub fn unfinished(&self) -> rusqlite::Result<Vec<GameRow>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {GAME_COLS} FROM games WHERE finished IS NULL"
        ))?;
        let rows = st.query_map([], game_row)?;
        rows.collect()
    }

    /// At most `limit` games, newest first (by creation, then by the order they were stored);
    /// `finished` filters on whether they are over; `before` (a game's id) starts the list
    /// after that game, so that a client can walk every game page by page. `Ok(None)` when
    /// `before` names no stored game.
    ///
    /// # Errors
    /// On a database error.
    pub fn list(
        &self,
        finished: Option<bool>,
        limit: u32,
        before: Option<&str>,
    ) -> rusqlite::Result<Option<Vec<GameRow>>> {
        let mut filters: Vec<&str> = Vec::new();
        match finished {
            None => {}
            Some(true) => filters.push("finished IS NOT NULL"),
            Some(false) => filters.push("finished IS NULL"),
        }
        let cursor = match before {
            None => (i64::MAX, i64::MAX),
            Some(id) => {
                let found = self
                    .conn
                    .query_row(
                        "SELECT created, rowid FROM games WHERE id = ?1",
                        [id],
                        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
                    )
                    .optional()?;
                let Some(found) = found else {
                    return Ok(None);
                };
                filters.push("(created < ?2 OR (created = ?2 AND rowid < ?3))");
                found
            }
        };
        let filter = if filters.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", filters.join(" AND "))
        };
        let mut st = self.conn.prepare(&format!(
            "SELECT {GAME_COLS} FROM games {filter} ORDER BY created DESC, rowid DESC LIMIT ?1"
        ))?;
        let rows = if before.is_some() {
            st.query_map(params![limit, cursor.0, cursor.1], game_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?
        } else {
            st.query_map(params![limit], game_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?
        };
        Ok(Some(rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sqlite_older_than_3_30_is_refused_by_name() {
        let err = check_sqlite_version(3_029_000, "3.29.0")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("3.29.0")
                && err.contains("older than 3.30")
                && err.contains("bundled-sqlite"),
            "{err}"
        );
        assert!(check_sqlite_version(3_030_000, "3.30.0").is_ok());
        // The library this build links passes.
        assert!(check_sqlite_version(rusqlite::version_number(), rusqlite::version()).is_ok());
    }

    fn row(id: &str) -> GameRow {
        GameRow {
            id: id.into(),
            game: "raja-pasu".into(),
            mode: "single".into(),
            first: "S".into(),
            opponent: "hotseat".into(),
            level: None,
            creator_seat: "S".into(),
            token_s: Some("t".into()),
            token_n: Some("t".into()),
            invite: None,
            created: 1,
            finished: None,
            winner: None,
            ply: 0,
            setup: None,
            rematch: None,
            ended: None,
            ended_by: None,
            series: None,
            termination: None,
            unreadable: None,
        }
    }

    #[test]
    fn moves_round_trip_and_truncate() {
        let dir = std::env::temp_dir().join(format!("pussa-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite3");
        let _ = std::fs::remove_file(&path);
        let mut s = Store::open(&path).unwrap();
        s.insert_game(&row("abcd")).unwrap();
        s.append_moves("abcd", 1, &["G".into(), "e".into()], None, None)
            .unwrap();
        // A ply stored twice is refused and the transaction leaves nothing behind.
        assert!(s
            .append_moves("abcd", 2, &["x".into()], None, None)
            .is_err());
        s.append_moves("abcd", 3, &["A".into()], Some(5), Some("S"))
            .unwrap();
        let g = s.game("abcd").unwrap().unwrap();
        assert_eq!(
            (g.ply, g.finished, g.winner.as_deref()),
            (3, Some(5), Some("S"))
        );
        assert_eq!(
            s.moves("abcd")
                .unwrap()
                .unwrap()
                .iter()
                .map(|m| m.mv.as_str())
                .collect::<Vec<_>>(),
            ["G", "e", "A"]
        );
        s.truncate_moves("abcd", 1).unwrap();
        assert_eq!(s.moves("abcd").unwrap().unwrap().len(), 1);
        assert_eq!(s.game("abcd").unwrap().unwrap().finished, None);
        assert_eq!(s.unfinished().unwrap().len(), 1);
        // A second server on the same file is refused while the first holds it.
        let err = Store::open(&path).err().expect("the file is locked");
        assert!(
            err.to_string().contains("another pussa serve (pid "),
            "{err}"
        );
        drop(s);
        // Reopening sees the same data.
        let s = Store::open(&path).unwrap();
        assert_eq!(s.moves("abcd").unwrap().unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_older_database_gets_the_rematch_column_and_links_once() {
        let dir = std::env::temp_dir().join(format!("pussa-store-old-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.sqlite3");
        let _ = std::fs::remove_file(&path);
        {
            // The games table as the first release made it, with a game in it.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(&SCHEMA.replace(
                "setup        TEXT,\n    rematch      TEXT,\n    ended        TEXT,\n    ended_by     TEXT,\n    series       TEXT,\n    termination  TEXT",
                "setup        TEXT",
            ))
            .unwrap();
            let cols: i64 = conn
                .query_row("SELECT count(*) FROM pragma_table_info('games')", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(cols, 15, "the old schema has no rematch column");
            conn.execute(
                "INSERT INTO games (id, game, mode, first, opponent, creator_seat, created) \
                 VALUES ('oldgame1', 'raja-pasu', 'single', 'S', 'online', 'S', 1)",
                [],
            )
            .unwrap();
        }
        let mut s = Store::open(&path).unwrap();
        let old = s.game("oldgame1").unwrap().unwrap();
        assert_eq!((old.opponent.as_str(), old.rematch), ("online", None));
        assert_eq!((old.ended, old.ended_by), (None, None));
        let mut new = row("newgame1");
        new.opponent = "online".into();
        s.insert_rematch("oldgame1", &new).unwrap();
        assert_eq!(
            s.game("oldgame1").unwrap().unwrap().rematch.as_deref(),
            Some("newgame1")
        );
        assert_eq!(s.game("newgame1").unwrap().unwrap(), new);
        // The ending columns are there too.
        s.end_game("oldgame1", "resign", Some("N"), 5, Some("S"))
            .unwrap();
        let ended = s.game("oldgame1").unwrap().unwrap();
        assert_eq!(
            (
                ended.ended.as_deref(),
                ended.ended_by.as_deref(),
                ended.finished,
                ended.winner.as_deref()
            ),
            (Some("resign"), Some("N"), Some(5), Some("S"))
        );
        assert!(s.end_game("nosuchgame", "abort", None, 5, None).is_err());
        // A second rematch of the same game is refused and leaves nothing behind.
        assert!(s.insert_rematch("oldgame1", &row("newgame2")).is_err());
        assert_eq!(s.game("newgame2").unwrap(), None);
        assert!(s.insert_rematch("nosuchgame", &row("newgame3")).is_err());
        assert_eq!(s.game("newgame3").unwrap(), None);
        drop(s);
        // Opening it again finds the column there and the link kept.
        let s = Store::open(&path).unwrap();
        assert_eq!(
            s.game("oldgame1").unwrap().unwrap().rematch.as_deref(),
            Some("newgame1")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
