//! `pussa play` in a real terminal: tmux runs it in a detached session, the test types keys
//! (`send-keys`) and reads the screen (`capture-pane`). scripts/test.sh installs tmux; without
//! it every test fails saying so, unless `PUSSA_SKIP_TMUX=1` is set (then they are skipped,
//! with a note on stderr).

use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
    /// When keys were last sent.
    sent: std::cell::Cell<Option<Instant>>,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Starts the session `play`, `width`×`height`, running the shell command `cmd`.
    fn start(&self, width: u32, height: u32, cmd: &str) {
        let (w, h) = (width.to_string(), height.to_string());
        let out = self.cmd(&["new-session", "-d", "-s", "play", "-x", &w, "-y", &h, cmd]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "play"]).stdout)
            .into_owned()
    }

    /// Sends `keys` at once (as a held key's repeats come, when they repeat one key), at least
    /// [`PRESS_GAP`] after the keys sent before: separate calls are separate presses.
    fn keys(&self, keys: &[&str]) {
        if let Some(at) = self.sent.get() {
            std::thread::sleep(PRESS_GAP.saturating_sub(at.elapsed()));
        }
        self.send(keys);
    }

    /// Sends `keys` now, however soon after the keys before.
    fn send(&self, keys: &[&str]) {
        self.sent.set(Some(Instant::now()));
        let mut args = vec!["send-keys", "-t", "play"];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status.success());
    }

    /// Quits a game that is not over: `q`, then, once the question is on screen, `q` again.
    /// Two `q`s only [`PRESS_GAP`] apart may reach a game held up on a loaded machine in one
    /// read, and then the second is the first's auto-repeat (tui::KeyRepeat): the game only
    /// asks, and never quits.
    fn quit_asked(&self) {
        self.keys(&["q"]);
        self.wait_for("the question to quit", |s| {
            words(s).contains("press q (or Esc) again to quit")
        });
        self.keys(&["q"]);
    }

    /// Waits until the screen satisfies `ok`; fails with the screen after 20 s.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {what}; the screen is:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The screen's words, one space between each: a text that wraps at the terminal's edge is
/// still found.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The least gap between two key presses the tests send: a key again within 100 ms of the
/// same key is a held key's repeat to the game (tui::KeyRepeat), a deliberate press later.
const PRESS_GAP: Duration = Duration::from_millis(250);

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn tmux_present() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the terminal tests may be skipped where tmux is missing: only when the developer says
/// so with `PUSSA_SKIP_TMUX=1` (a run without tmux otherwise fails, never passes untested).
fn skip_without_tmux() -> bool {
    std::env::var("PUSSA_SKIP_TMUX").is_ok_and(|v| v == "1")
}

/// Fails the test where tmux is missing (scripts/test.sh installs it), unless
/// `PUSSA_SKIP_TMUX=1` lets it be skipped: then `false`, with a note on stderr.
fn require_tmux() -> bool {
    if tmux_present() {
        return true;
    }
    assert!(
        skip_without_tmux(),
        "tmux is not installed: the terminal tests need it (apt-get install tmux, or run \
         scripts/test.sh, which installs it); set PUSSA_SKIP_TMUX=1 to skip them"
    );
    eprintln!("note: tmux is not installed and PUSSA_SKIP_TMUX=1: terminal test skipped");
    false
}

/// A tmux server of its own for one test (socket `tag-<pid>`). Where tmux is missing the test
/// fails, or, with `PUSSA_SKIP_TMUX=1`, is skipped (`None`).
fn tmux(tag: &str) -> Option<Tmux> {
    if !require_tmux() {
        return None;
    }
    Some(Tmux {
        socket: format!("{tag}-{}", std::process::id()),
        sent: std::cell::Cell::new(None),
    })
}

/// QA pass 18, review-tests #5: without tmux all these tests passed untested. This binary run
/// again with a `PATH` holding no tmux: the terminal test fails naming tmux, and passes (skipped)
/// only with `PUSSA_SKIP_TMUX=1`.
#[test]
fn without_tmux_the_terminal_tests_fail_unless_skipping_is_asked_for() {
    let empty = std::env::temp_dir().join(format!("pussa-notmux-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let run = |skip: Option<&str>| {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args([
            "--exact",
            "play_against_the_computer_in_a_terminal",
            "--nocapture",
        ])
        .env("PATH", &empty)
        .env_remove("PUSSA_SKIP_TMUX");
        if let Some(v) = skip {
            c.env("PUSSA_SKIP_TMUX", v);
        }
        let o = c.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    };
    let failed = run(None);
    let other = run(Some("0"));
    let skipped = run(Some("1"));
    let _ = std::fs::remove_dir_all(&empty);
    assert!(!failed.0, "{}", failed.1);
    assert!(
        failed
            .1
            .contains("tmux is not installed: the terminal tests need it"),
        "{}",
        failed.1
    );
    assert!(!other.0, "{}", other.1);
    assert!(skipped.0, "{}", skipped.1);
    assert!(
        skipped
            .1
            .contains("PUSSA_SKIP_TMUX=1: terminal test skipped"),
        "{}",
        skipped.1
    );
}

#[test]
fn play_against_the_computer_in_a_terminal() {
    let Some(t) = tmux("pussa-test") else { return };
    let cmd = format!(
        "{} play --game raja-pasu --level beginner --delay 0; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_pussa")
    );
    t.start(110, 30, &cmd);
    let s = t.wait_for("the first prompt", |s| s.contains("your move"));
    assert!(
        s.contains("Raja Pasu · single game · taken: South 0, North 0"),
        "{s}"
    );
    // South's row nearest, labelled A..G; North's row across, g..a.
    let top = s
        .find("  g   f   e   d   c   b   a")
        .expect("North's labels");
    let bottom = s
        .find("  A   B   C   D   E   F   G")
        .expect("South's labels");
    assert!(top < bottom, "{s}");
    // A lower-case letter plays South's hole: G, the contract's worked move (South 11, North 8).
    t.keys(&["g"]);
    let s = t.wait_for("South's move and the computer's reply", |s| {
        s.contains("1. S G +11") && s.contains("2. N ") && s.contains("your move")
    });
    assert!(s.contains("South (you) holds"), "{s}");
    // The computer's move stays in the news line until yours.
    assert!(s.contains("North played "), "{s}");
    // A hint names a legal move with what its value means.
    t.keys(&["h"]);
    let s = t.wait_for("the hint", |s| {
        s.contains("hint: ") && s.contains("final margin")
    });
    assert!(!s.contains("hint: no move"), "{s}");
    // Undo goes back to the start: the move list is empty again.
    t.keys(&["u"]);
    let s = t.wait_for("the take-back", |s| s.contains("Taken back"));
    assert!(!s.contains("1. S G"), "{s}");
    t.keys(&["q"]);
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

#[test]
fn hotseat_match_shows_both_sides_moving() {
    if !require_tmux() {
        return;
    }
    let t = Tmux {
        socket: format!("pussa-test-hs-{}", std::process::id()),
        sent: std::cell::Cell::new(None),
    };
    let cmd = format!(
        "{} play --game walak-pussa --match --hotseat --delay 0; echo EXIT=$?; sleep 60",
        env!("CARGO_BIN_EXE_pussa")
    );
    t.start(110, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    t.keys(&["A"]);
    let s = t.wait_for("North's turn", |s| s.contains("North: your move"));
    assert!(s.contains("1. S A +6"), "{s}");
    assert!(s.contains("South holds 6"), "{s}");
    // North's `b` was captured: pressing B (North's b) is refused with the reason.
    t.keys(&["B"]);
    t.wait_for("the refusal", |s| {
        s.contains("illegal move b: the hole is empty")
    });
    t.keys(&["c"]);
    t.wait_for("North's move", |s| s.contains("2. N c"));
    // The match goes on: q asks first, a second q quits.
    t.keys(&["q"]);
    t.wait_for("the question", |s| {
        s.contains("press q (or Esc) again to quit")
    });
    t.keys(&["q"]);
    let s = t.wait_for("the exit", |s| s.contains("EXIT=0"));
    // Nothing played is lost: the moves are printed as a replay command.
    assert!(
        s.contains("2 moves played; to see them again: pussa replay --game walak-pussa --match --moves \"A c\""),
        "{s}"
    );
}

#[test]
fn a_kill_gives_the_terminal_back() {
    let Some(t) = tmux("pussa-test-term") else {
        return;
    };
    // The shell prints a marker before the game, so the screen after it shows whether the
    // game's screen was taken down.
    let pid_file = std::env::temp_dir().join(format!("pussa-play-pid-{}", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    let cmd = format!(
        "echo BEFORE-THE-GAME; sh -c 'echo $$ > {}; exec {} play --game raja-pasu --hotseat --delay 0'; echo EXIT=$?; sleep 60",
        pid_file.display(),
        env!("CARGO_BIN_EXE_pussa")
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    let pid = std::fs::read_to_string(&pid_file).expect("the game's pid");
    let _ = std::fs::remove_file(&pid_file);
    assert!(Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .expect("kill")
        .success());
    let s = t.wait_for("the exit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "{s}");
    // The game's screen is gone: the shell's lines are back, no board is left on screen.
    assert!(s.contains("BEFORE-THE-GAME"), "{s}");
    assert!(!s.contains("your move") && !s.contains(" board "), "{s}");
}

/// SIGINT and SIGQUIT from outside (`kill -INT`, `timeout -s INT`, a wrapper passing on
/// Ctrl-C; in raw mode Ctrl-C itself is a key) end the game as SIGTERM does: the `--save` record
/// is written, the terminal is given back in its own mode (not raw) and the exit status is 0.
#[test]
fn sigint_and_sigquit_save_the_record_and_give_the_terminal_back() {
    for sig in ["INT", "QUIT"] {
        let Some(t) = tmux(&format!("pussa-test-{}", sig.to_lowercase())) else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("pussa-play-{sig}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        let file = dir.join("g.txt");
        let cmd = format!(
            "echo BEFORE-THE-GAME; sh -c 'echo $$ > {}; exec {} play --game walak-pussa --hotseat --delay 0 --save {}'; echo EXIT=$?; stty -a | tr ' ;' '\\n\\n' | grep -x -- '-*icanon'; sleep 60",
            pid_file.display(),
            pussa(),
            file.display()
        );
        t.start(100, 30, &cmd);
        t.wait_for("the first prompt", |s| s.contains("your move"));
        t.keys(&["A"]);
        t.wait_for("North's turn", |s| s.contains("North: your move"));
        let pid = std::fs::read_to_string(&pid_file).expect("the game's pid");
        assert!(Command::new("kill")
            .args([&format!("-{sig}"), pid.trim()])
            .status()
            .expect("kill")
            .success());
        let s = t.wait_for("the exit", |s| s.contains("EXIT="));
        assert!(s.contains("EXIT=0"), "SIG{sig}: {s}");
        assert!(s.contains("BEFORE-THE-GAME"), "SIG{sig}: {s}");
        assert!(!s.contains("your move"), "SIG{sig}: {s}");
        // The terminal is back in canonical mode, not left raw.
        let s = t.wait_for("stty's answer", |s| s.contains("icanon"));
        assert!(
            s.lines().any(|l| l.trim() == "icanon"),
            "SIG{sig}: the terminal is left raw: {s}"
        );
        let text = std::fs::read_to_string(&file).expect("the record is saved");
        assert!(text.contains("1. A"), "SIG{sig}: {text}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

fn pussa() -> &'static str {
    env!("CARGO_BIN_EXE_pussa")
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Closing the terminal (tmux kills the session, the pty goes away) ends the game within a
/// few seconds, instead of a busy loop reading the end of file for ever.
#[test]
fn closing_the_terminal_ends_the_game() {
    let Some(t) = tmux("pussa-test-close") else {
        return;
    };
    let pid_file = std::env::temp_dir().join(format!("pussa-play-close-{}", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    let cmd = format!(
        "sh -c 'echo $$ > {}; exec {} play --game raja-pasu --hotseat --delay 0'",
        pid_file.display(),
        pussa()
    );
    t.start(80, 24, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    let pid = std::fs::read_to_string(&pid_file).expect("the game's pid");
    let pid = pid.trim().to_string();
    let _ = std::fs::remove_file(&pid_file);
    assert!(alive(&pid));
    t.cmd(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(&pid) {
        if Instant::now() > deadline {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            panic!("pussa play (pid {pid}) still runs 5 s after its terminal closed");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Ctrl and Alt with a letter play no move; Ctrl-D quits.
#[test]
fn ctrl_and_alt_letters_are_not_moves() {
    let Some(t) = tmux("pussa-test-ctrl") else {
        return;
    };
    let cmd = format!(
        "{} play --game raja-pasu --hotseat --delay 0; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    t.keys(&["C-b"]);
    t.wait_for("the refusal", |s| s.contains("Ctrl-b ignored"));
    t.keys(&["M-g"]);
    let s = t.wait_for("the refusal", |s| s.contains("Alt-g ignored"));
    assert!(!s.contains("1. S"), "{s}");
    assert!(s.contains("South: your move"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// At small sizes the board keeps its rows and letters, the move list gives way; below the
/// minimum the screen says how much room it needs.
#[test]
fn a_small_terminal_keeps_the_board() {
    let Some(t) = tmux("pussa-test-small") else {
        return;
    };
    let cmd = format!(
        "{} play --game walak-pussa --hotseat --delay 0; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 35, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    t.keys(&["A"]);
    t.wait_for("North's turn", |s| s.contains("North: your move"));
    for (w, h) in [(80, 12), (40, 12), (60, 12), (40, 16)] {
        t.cmd(&[
            "resize-window",
            "-t",
            "play",
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
        ]);
        // Everything asserted is waited for: until the game has drawn the new size, the
        // screen holds what tmux kept of the old drawing (cut to the new width and height),
        // which may have South's letters and not the rest.
        let wants = [
            "A   B   C   D   E   F   G",
            "g   f   e   d   c   b   a",
            "  N    ",
            "  S    ",
            "South holds 6",
        ];
        t.wait_for(&format!("the whole board at {w}x{h}"), |s| {
            s.lines().count() <= h
                && wants.iter().all(|want| s.contains(want))
                && words(s).contains("North: your move (a-g; legal:")
        });
    }
    t.cmd(&["resize-window", "-t", "play", "-x", "30", "-y", "20"]);
    t.wait_for("the message", |s| {
        let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
        words.contains("terminal too small: need at least 40×") && words.contains("(now 30×20)")
    });
}

/// --position starts from a position, the end is saved with --save, `n` starts a new game
/// (saved to a file of its own), and quitting says where the record is.
#[test]
fn a_position_a_saved_record_and_a_new_game() {
    let Some(t) = tmux("pussa-test-save") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.txt");
    // An earlier session's second game: the new second game passes over its number.
    std::fs::write(dir.join("game-2.txt"), "an earlier game\n").unwrap();
    let cmd = format!(
        "{} play --game walak-pussa --hotseat --delay 0 --position '0,0,0,0,0,1,0/0,0,0,0,0,0,0 28 27 S 1 walak-pussa' --save {}; echo EXIT=$?; sleep 60",
        pussa(),
        file.display()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| {
        s.contains("South: your move (A-G; legal: F)")
    });
    t.keys(&["F"]);
    let s = t.wait_for("the end", |s| s.contains("Game record saved to"));
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("The game is over: South wins, 29 to 27."),
        "{s}"
    );
    assert!(words.contains("n new game"), "{s}");
    let text = std::fs::read_to_string(&file).expect("the record");
    let out = Command::new(pussa())
        .args(["replay", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("The game is over: South wins, 29 to 27."),
        "{text}"
    );
    t.keys(&["n"]);
    let s = t.wait_for("the new game", |s| s.contains("New game 2"));
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("from the same position"), "{s}");
    assert!(words.contains("game-3.txt"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("the exit", |s| s.contains("EXIT=0"));
    assert!(
        !s.contains("game-3.txt (`pussa replay"),
        "nothing played, nothing saved:\n{s}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("game-2.txt")).unwrap(),
        "an earlier game\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--save` never writes over an earlier record unless `--force` says so, and a file that
/// cannot be created is refused before the game (both used to show only at quit, the first not
/// at all: the old record was silently replaced, the second printed an error and exited 0).
#[test]
fn save_refuses_an_existing_or_unwritable_file_at_start_up() {
    let dir = std::env::temp_dir().join(format!("pussa-play-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("precious.txt");
    std::fs::write(&old, "[Game \"raja-pasu\"]\n\n1. G e *\n").unwrap();
    let run = |args: &[&str]| {
        Command::new(pussa())
            .arg("play")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let o = old.to_str().unwrap();
    let out = run(&["--hotseat", "--save", o]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim_end(),
        format!("error: --save {o}: the file exists (choose another name, or add --force to write over it)")
    );
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        "[Game \"raja-pasu\"]\n\n1. G e *\n"
    );
    // With --force the file is accepted (the next refusal is the missing terminal's).
    let out = run(&["--hotseat", "--save", o, "--force"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs an interactive terminal"), "{err}");
    let bad = dir.join("no-such-dir").join("x.txt");
    let out = run(&["--hotseat", "--save", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error: --save: cannot write {}: ", bad.display()))
            && err.lines().count() == 1,
        "{err}"
    );
    // --force alone says nothing: clap refuses it.
    let out = run(&["--hotseat", "--force"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// `play --position` takes the game from the position string, as replay, explain and analyze
/// do (it used to compare it with the hidden default walak-pussa and refuse).
#[test]
fn play_takes_the_game_from_the_position() {
    let out = Command::new(pussa())
        .args([
            "play",
            "--hotseat",
            "--position",
            "x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs an interactive terminal"), "{err}");
    // A --game the user gives is still checked against the position.
    let out = Command::new(pussa())
        .args([
            "play",
            "--hotseat",
            "--game",
            "pasu-pondi",
            "--position",
            "x,7,7,7,7,7,7/7,7,7,7,7,7,7 3 4 S 2 raja-pasu",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("raja-pasu") && err.contains("pasu-pondi"),
        "{err}"
    );
}

/// A record that cannot be written when the game is quit (its directory was removed during
/// the game) is an error: the moves are printed and the exit status is 1, not 0.
#[test]
fn a_failed_final_save_exits_non_zero() {
    let Some(t) = tmux("pussa-test-lost") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-lost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("x.txt");
    let cmd = format!(
        "{} play --hotseat --delay 0 --save {}; echo EXIT=$?; sleep 60",
        pussa(),
        file.display()
    );
    // Wide enough for the error line unwrapped.
    t.start(250, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    t.keys(&["A"]);
    t.wait_for("North's turn", |s| s.contains("North: your move"));
    std::fs::remove_dir_all(&dir).unwrap();
    t.quit_asked();
    let s = t.wait_for("the exit", |s| s.contains("EXIT="));
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("EXIT=1"), "{s}");
    assert!(
        words.contains("error: the game record was not saved: cannot write")
            && words.contains("the moves: pussa replay --game walak-pussa --moves \"A"),
        "{s}"
    );
}

/// TERM=dumb is refused with a clear message.
#[test]
fn a_dumb_terminal_is_refused() {
    let Some(t) = tmux("pussa-test-dumb") else {
        return;
    };
    let cmd = format!("TERM=dumb {} play; echo EXIT=$?; sleep 60", pussa());
    t.start(100, 20, &cmd);
    let s = t.wait_for("the exit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=1"), "{s}");
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("TERM=dumb cannot"), "{s}");
}

/// Without a terminal `pussa play` refuses at once (exit 1), naming what is missing; bad
/// option values are clap's value errors (exit 2).
#[test]
fn no_terminal_and_bad_options() {
    let run = |args: &[&str]| {
        Command::new(pussa())
            .arg("play")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["--hotseat"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("pussa play needs an interactive terminal (standard input and output are not terminals); for scripts use `pussa replay` or `pussa engine`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    for (args, want) in [
        (&["--level", "godlike"][..], "unknown level 'godlike'"),
        (
            &["--game", "raja-pasu", "--level", "2"][..],
            "'novice' is not offered",
        ),
        // The error quotes what was typed, not the level's name.
        (
            &["--game", "raja-pasu", "--level", "2"][..],
            "invalid value '2' for '--level <LEVEL>'",
        ),
        (&["--delay", "-1"][..], "from 0 to 10000"),
        (&["--seed", "-1"][..], "whole number from 0"),
        (&["--hotseat", "--seed", "5"][..], "cannot be used with"),
        (&["--hotseat", "--level", "max"][..], "cannot be used with"),
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// `--egtb` goes with `--hotseat` (the hints use the tables): only the missing terminal is
/// refused. `pussa play --help` names the second game's file as the program makes it.
#[test]
fn hotseat_takes_egtb_and_the_help_names_the_numbered_file() {
    for args in [
        &["--hotseat", "--egtb", "none"][..],
        &["--hotseat", "--egtb", "/nonexistent"],
    ] {
        let out = Command::new(pussa())
            .arg("play")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("cannot be used with"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let out = Command::new(pussa())
        .args(["play", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("`game.txt` → `game-2.txt`"), "{help}");
    assert!(!help.contains("FILE-2"), "{help}");
    assert!(words.contains("+ or - faster or slower"), "{help}");
    assert!(words.contains("Ctrl-Z"), "{help}");
}

/// Closing the terminal (the pty is gone: tmux kills the server) while a game with --save goes
/// on: the record is written and the process exits normally (it used to abort, SIGABRT, from
/// a panic while printing to the dead terminal, before saving).
#[test]
fn closing_the_terminal_saves_the_record() {
    let Some(t) = tmux("pussa-test-hup") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-hup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g.txt");
    let rc = dir.join("rc");
    // The shell survives the hangup (a handler, which the game does not inherit) and writes
    // the game's exit status.
    let cmd = format!(
        "sh -c 'trap : HUP; {} play --game walak-pussa --delay 0 --save {}; echo $? > {}'",
        pussa(),
        file.display(),
        rc.display()
    );
    t.start(80, 24, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    t.keys(&["A"]);
    t.wait_for("the computer's reply", |s| s.contains("2. N "));
    t.cmd(&["kill-server"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !rc.exists() || std::fs::read_to_string(&rc).unwrap().trim().is_empty() {
        assert!(Instant::now() < deadline, "pussa play did not end");
        std::thread::sleep(Duration::from_millis(100));
    }
    let code = std::fs::read_to_string(&rc).unwrap();
    assert_eq!(code.trim(), "0", "exit status (134 is SIGABRT)");
    let text = std::fs::read_to_string(&file).expect("the record is saved");
    assert!(text.contains("1. A "), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// After the finished game was saved, taking back every move and quitting leaves the record
/// as the game was left (no move, no result), not the finished game.
#[test]
fn quitting_after_taking_back_every_move_rewrites_the_record() {
    let Some(t) = tmux("pussa-test-undoall") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-undoall-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g.txt");
    let cmd = format!(
        "{} play --hotseat --delay 0 --position '0,0,0,0,0,1,0/0,0,0,0,0,0,0 28 27 S 1 walak-pussa' --save {}; echo EXIT=$?; sleep 60",
        pussa(),
        file.display()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    t.keys(&["F"]);
    t.wait_for("the save", |s| s.contains("Game record saved to"));
    assert!(std::fs::read_to_string(&file).unwrap().contains("1-0"));
    t.keys(&["u"]);
    t.wait_for("the take-back", |s| s.contains("Taken back."));
    t.keys(&["q"]);
    let s = t.wait_for("the exit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "{s}");
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("every move was taken back"), "{s}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains("1-0") && !text.contains("1. F") && text.contains("[Result \"*\"]"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `?` after a resize opens a help panel that is drawn at once, and the key after it closes
/// it (it used to be drawn only after the next key, which closed it: a move typed was lost).
#[test]
fn the_help_opens_after_a_resize() {
    let Some(t) = tmux("pussa-test-resize") else {
        return;
    };
    let cmd = format!("{} play --delay 0; echo EXIT=$?; sleep 60", pussa());
    t.start(80, 24, &cmd);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    t.keys(&["z"]);
    t.wait_for("the news", |s| s.contains("unknown key z"));
    for (w, h) in [("100", "30"), ("60", "20")] {
        t.cmd(&["resize-window", "-t", "play", "-x", w, "-y", h]);
        std::thread::sleep(Duration::from_millis(300));
        t.keys(&["?"]);
        t.wait_for("the help panel", |s| s.contains("help: any"));
        t.keys(&["x"]);
        t.wait_for("the board again", |s| {
            s.contains("your move") && !s.contains("help: any")
        });
    }
    t.keys(&["A"]);
    t.wait_for("the move", |s| s.contains("1. S A"));
}

/// Ctrl-Z gives the terminal back to the shell (job control stops the game); `fg` brings the
/// game back, drawn again and playable.
#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    let Some(t) = tmux("pussa-test-tstp") else {
        return;
    };
    t.start(100, 30, "bash --norc --noprofile -i");
    std::thread::sleep(Duration::from_millis(300));
    t.keys(&[&format!("{} play --hotseat --delay 0", pussa()), "Enter"]);
    t.wait_for("the first prompt", |s| s.contains("your move"));
    t.keys(&["C-z"]);
    let s = t.wait_for("the shell", |s| s.contains("Stopped"));
    assert!(!s.contains("your move"), "{s}");
    t.keys(&["fg", "Enter"]);
    t.wait_for("the game again", |s| s.contains("South: your move"));
    t.keys(&["A"]);
    t.wait_for("the move", |s| s.contains("1. S A"));
    t.keys(&["C-c"]);
    t.keys(&["echo DONE=$?", "Enter"]);
    t.wait_for("the exit", |s| s.contains("DONE=0"));
}

/// `n` pressed while the last frame of the game's last move is still up saves the finished
/// game before the next one begins (it used to start game 2 and leave game 1 in no file).
#[test]
fn n_during_the_last_frame_saves_the_finished_game() {
    let Some(t) = tmux("pussa-test-nsave") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-nsave-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ns.txt");
    let cmd = format!(
        "{} play --hotseat --egtb none --delay 2000 --save {} --position '0,0,0,0,0,1,0/0,0,0,0,0,0,0 28 27 S 1 walak-pussa'; echo EXIT=$?; sleep 60",
        pussa(),
        file.display()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("legal: F"));
    t.keys(&["F"]);
    // The move's last frame stays up for the 2 s of --delay (the lift, the lap and the
    // round's end before it, 2 s each).
    let s = t.wait_for("the last frame", |s| s.contains("South played F"));
    assert!(s.contains("n new game"), "{s}");
    assert!(!file.exists(), "saved before the last frame was gone:\n{s}");
    t.keys(&["n"]);
    let s = t.wait_for("the new game", |s| s.contains("New game 2"));
    let words = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(&format!("Game 1's record saved to {}.", file.display())),
        "{s}"
    );
    assert!(words.contains("ns-2.txt"), "{s}");
    let text = std::fs::read_to_string(&file).expect("the finished game is saved");
    assert!(text.contains("1. F 1-0"), "{text}");
    t.keys(&["q"]);
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
    assert!(!dir.join("ns-2.txt").exists(), "game 2 had no move");
    std::fs::remove_dir_all(&dir).ok();
}

/// A key held down in a hotseat game plays one move: its auto-repeat (here three G's at once,
/// as a terminal sends a held key) used to skip South's animation and play North's g.
#[test]
fn a_held_key_plays_one_move_in_a_hotseat_game() {
    let Some(t) = tmux("pussa-test-repeat") else {
        return;
    };
    let cmd = format!(
        "{} play --hotseat --egtb none --game raja-pasu --delay 100; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    t.keys(&["GGG"]);
    let s = t.wait_for("South's move, shown", |s| {
        s.contains("1. S G +11, N +8") && s.contains("North: your move")
    });
    std::thread::sleep(Duration::from_millis(500));
    let s2 = t.screen();
    assert!(
        !s2.contains("2. N g"),
        "a repeat played North's move:\n{s}\n{s2}"
    );
    // A new press, a moment later, is North's move.
    t.keys(&["G"]);
    t.wait_for("North's move", |s| s.contains("2. N g"));
    t.quit_asked();
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// `+` pressed down to "off" while a lap is on screen ends the move at once; it used to wait
/// out the frame's old time (here 10 s). Raja Pasu's first move A has a dozen lifts, so the
/// sowing is still on screen when the tenth press comes (checked: it must not pass with a move
/// that ended before it).
#[test]
fn speed_keys_act_on_the_frame_on_screen() {
    let Some(t) = tmux("pussa-test-speed") else {
        return;
    };
    let cmd = format!(
        "{} play --hotseat --egtb none --game raja-pasu --delay 10000; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    t.keys(&["A"]);
    t.wait_for("the first frame", |s| s.contains("South lifts A"));
    // Ten presses, each a press of its own (not a held key's repeat); timed from the last.
    // Each is seen taken (the news names the new speed) before the next is sent: two presses
    // that reach a game held up on a loaded machine in one read are a held key's repeat to it
    // (tui::KeyRepeat), and the second would do nothing.
    for ms in [2000, 1000, 750, 500, 350, 250, 175, 100, 50] {
        t.keys(&["+"]);
        let want = format!("Animation: {ms} ms a lap");
        t.wait_for(&want, |s| words(s).contains(&want));
    }
    // The tenth press must reach a sowing still on screen, or the test tests nothing.
    let before = t.screen();
    assert!(
        !before.contains("North: your move"),
        "the move ended early, before the last press:\n{before}"
    );
    t.keys(&["+"]);
    let pressed = Instant::now();
    // Both: at 50 ms a lap (the ninth press) the move may end before the tenth press has
    // reached the game, which then turns the animation off at the prompt.
    let s = t.wait_for("the end of the move, the animation off", |s| {
        s.contains("North: your move") && s.contains("Animation off")
    });
    assert!(
        pressed.elapsed() < Duration::from_secs(4),
        "the move ended {:?} after the animation was turned off:\n{s}",
        pressed.elapsed()
    );
    t.quit_asked();
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// A stop sent from outside (`kill -TSTP`, or `kill -STOP`, which cannot be caught) and `fg`:
/// the game is back in raw mode and drawn whole, and keys act at once (it used to go on in the
/// shell's cooked mode, keys echoed and read only after Enter, the screen not drawn again).
#[test]
fn a_stop_from_outside_and_fg_bring_the_game_back_whole() {
    let Some(t) = tmux("pussa-test-stop") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    t.start(100, 30, "bash --norc --noprofile -i");
    std::thread::sleep(Duration::from_millis(300));
    t.keys(&[
        &format!(
            "sh -c 'echo $$ > {}; exec {} play --hotseat --egtb none --delay 0'",
            pid_file.display(),
            pussa()
        ),
        "Enter",
    ]);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    let pid = std::fs::read_to_string(&pid_file).expect("the game's pid");
    let pid = pid.trim();
    for (n, sig) in ["TSTP", "STOP"].into_iter().enumerate() {
        assert!(Command::new("kill")
            .args([&format!("-{sig}"), pid])
            .status()
            .expect("kill")
            .success());
        let s = t.wait_for("the shell", |s| s.contains("Stopped"));
        if sig == "TSTP" {
            // The game gave the terminal back before it stopped.
            assert!(!s.contains("your move"), "{s}");
        }
        t.keys(&["clear", "Enter"]);
        t.wait_for("the shell's screen", |s| !s.contains("Stopped"));
        t.keys(&["fg", "Enter"]);
        let s = t.wait_for("the game drawn whole", |s| {
            s.contains("your move") && s.contains("board · sowing")
        });
        assert!(
            !s.contains("$ fg"),
            "SIG{sig}: the shell's lines are left:\n{s}"
        );
        // A key acts at once (raw mode), and is not echoed.
        let key = ["A", "d"][n];
        t.keys(&[key]);
        let s = t.wait_for("the move", |s| s.contains(["1. S A", "2. N d"][n]));
        assert!(!s.contains("Ad"), "SIG{sig}: {s}");
    }
    t.keys(&["C-c"]);
    // The game has given the terminal back before the shell's command is typed.
    t.wait_for("the game's end", |s| s.contains("2 moves played"));
    t.keys(&["echo DONE=$?", "Enter"]);
    t.wait_for("the exit", |s| s.contains("DONE=0"));
    std::fs::remove_dir_all(&dir).ok();
}

/// QA pass 18 (second review-tui) #1b: in a hotseat game North's `a` 350 ms after South's `a`
/// may be the first auto-repeat of South's key: it plays no move, and the news says so (it
/// used to be dropped without a word, even when pressed twice); pressing it again plays.
///
/// The game times keys as it reads them: a doubtful key is one read more than
/// `KeyRepeat::STREAM` (100 ms) and at most `KeyRepeat::FIRST` (600 ms) after the press that
/// played. 350 ms is the middle of that, so that a game or tmux held up for a while on a loaded
/// machine still reads the two keys in it (at 200 ms, a game held up more than 100 ms reads
/// both at once: a held key's repeat, rightly dropped without a word, and the test failed).
#[test]
fn a_key_that_looks_held_is_named_and_pressing_it_again_plays() {
    let Some(t) = tmux("pussa-test-doubt") else {
        return;
    };
    let cmd = format!(
        "{} play --hotseat --egtb none --delay 0 --position '2,0,0,0,0,0,0/2,0,0,0,0,0,0 26 26 S 1 walak-pussa'; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("legal: A"));
    t.send(&["a"]);
    std::thread::sleep(Duration::from_millis(350));
    t.send(&["a"]);
    let s = t.wait_for("the word", |s| {
        s.contains("a ignored: the key looked held; press it again to play")
    });
    assert!(s.contains("1. S A") && !s.contains("2. N a"), "{s}");
    t.keys(&["a"]);
    t.wait_for("North's move", |s| s.contains("2. N a"));
    t.quit_asked();
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// QA pass 18 (second review-tui) #1a: the letter that skipped the computer's animation
/// played no move; the same letter 400 ms later, on the player's turn, is the player's move
/// (it used to be dropped as a repeat).
#[test]
fn a_letter_that_skipped_the_animation_plays_when_pressed_again() {
    let Some(t) = tmux("pussa-test-skipplay") else {
        return;
    };
    let cmd = format!(
        "{} play --egtb none --first N --delay 1500 --level beginner --seed 1; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the computer's move", |s| s.contains("lifts"));
    t.send(&["G"]);
    std::thread::sleep(Duration::from_millis(400));
    t.send(&["G"]);
    let s = t.wait_for("the player's move", |s| s.contains("2. S G"));
    assert!(!s.contains("ignored"), "{s}");
    t.quit_asked();
    t.wait_for("the exit", |s| s.contains("EXIT="));
}

/// QA pass 18 (second review-tui) #2: a held `u` takes back one move and a held `q` only asks
/// (their auto-repeats, here the key three or two times at once, used to take back three moves
/// and quit without the question).
#[test]
fn a_held_undo_or_quit_acts_once() {
    let Some(t) = tmux("pussa-test-heldu") else {
        return;
    };
    let cmd = format!(
        "{} play --hotseat --egtb none --delay 0; echo EXIT=$?; sleep 60",
        pussa()
    );
    t.start(100, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("South: your move"));
    for (k, seen) in [
        ("A", "1. S A"),
        ("c", "2. N c"),
        ("D", "3. S D"),
        ("b", "4. N b"),
    ] {
        t.keys(&[k]);
        t.wait_for(seen, |s| s.contains(seen));
    }
    t.keys(&["uuu"]);
    let s = t.wait_for("one move taken back", |s| !s.contains("4. N b"));
    std::thread::sleep(Duration::from_millis(500));
    let s2 = t.screen();
    assert!(s2.contains("3. S D"), "a held u took back more:\n{s}\n{s2}");
    t.keys(&["qq"]);
    t.wait_for("the question", |s| {
        s.contains("press q (or Esc) again to quit")
    });
    std::thread::sleep(Duration::from_millis(500));
    let s = t.screen();
    assert!(!s.contains("EXIT="), "a held q quit:\n{s}");
    t.keys(&["q"]);
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// QA pass 18 (second review-tui) #3: a key typed while the game starts up acts as soon as
/// the game is up (it used to wait, unread, for the next key).
#[test]
fn a_key_typed_during_start_up_acts_at_once() {
    let Some(t) = tmux("pussa-test-ahead") else {
        return;
    };
    t.start(100, 30, "sh");
    t.send(&[
        &format!(
            "{} play --hotseat --egtb none --delay 0; echo EXIT=$?",
            pussa()
        ),
        "Enter",
        "A",
    ]);
    t.wait_for("the move typed ahead", |s| s.contains("1. S A"));
    t.quit_asked();
    t.wait_for("the exit", |s| s.contains("EXIT=0"));
}

/// QA pass 18 (second review-tui) #4: when the finished game's file cannot be written, `n`
/// says why once, however often it is pressed, and says that q quits with the moves printed
/// (each `n` used to add another copy of the error).
#[test]
fn a_failed_save_is_told_once_with_the_way_out() {
    let Some(t) = tmux("pussa-test-nfail") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("pussa-play-nfail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cmd = format!(
        "{} play --hotseat --egtb none --delay 0 --save {}/g.txt --position '0,0,0,0,0,1,0/0,0,0,0,0,0,0 28 27 S 1 walak-pussa'; echo EXIT=$?; sleep 60",
        pussa(),
        dir.display()
    );
    t.start(200, 30, &cmd);
    t.wait_for("the first prompt", |s| s.contains("legal: F"));
    std::fs::remove_dir_all(&dir).unwrap();
    t.keys(&["F"]);
    t.wait_for("the end", |s| s.contains("South wins"));
    for _ in 0..3 {
        t.keys(&["n"]);
    }
    // The first `n`'s answer is waited for (on a loaded machine it may come well after the
    // presses); then the later ones have a moment to add a copy, which they must not.
    t.wait_for("the failed save's answer", |s| {
        words(s).contains("q quits and prints the moves as a `pussa replay` command")
    });
    std::thread::sleep(Duration::from_millis(500));
    let s = t.screen();
    let words = words(&s);
    assert_eq!(words.matches("was not saved").count(), 1, "{s}");
    assert!(
        words.contains("q quits and prints the moves as a `pussa replay` command"),
        "{s}"
    );
    assert!(!words.contains("cannot write the game record"), "{s}");
    t.keys(&["q"]);
    t.wait_for("the exit", |s| s.contains("EXIT=1"));
}
