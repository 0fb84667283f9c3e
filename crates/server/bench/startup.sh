#!/usr/bin/env bash
# The time from starting `pussa serve` to the first page served, on a release build.
#
#   bash crates/server/bench/startup.sh [RUNS] [GAMES]
#
# Builds the release binary (cargo build --release -p pussa), then RUNS times (default 5): starts
# `pussa serve --addr 127.0.0.1:0` on a fresh data directory, reads the "open" line for the port,
# and fetches `/` (the page) then `/app.js` with curl; prints the milliseconds from spawning the
# process to the "open" line and to the end of the page's first byte stream. With GAMES > 0, the
# same on a database holding GAMES unfinished games (rebuilt by replaying their moves at start).
set -euo pipefail
cd "$(dirname "$0")/../../.."
RUNS=${1:-5}
GAMES=${2:-0}
command -v curl >/dev/null || { echo "error: curl is needed" >&2; exit 1; }
cargo build --release -p pussa --quiet
TARGET=${CARGO_TARGET_DIR:-target}
BIN="$TARGET/release/pussa"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Starts the server on $1 (data dir); sets PID, ADDR, T_LISTEN (ms after spawn).
start() {
  local data=$1 fifo="$WORK/out.$RANDOM"
  mkfifo "$fifo"
  T0=$(now_ms)
  "$BIN" serve --addr 127.0.0.1:0 --data "$data" >"$fifo" 2>/dev/null &
  PID=$!
  exec 3<"$fifo"
  local line
  read -r line <&3
  T_LISTEN=$(( $(now_ms) - T0 ))
  ADDR=${line#pussa: open http://}
  ADDR=${ADDR%/}
  # Drain the rest of stdout in the background.
  cat <&3 >/dev/null &
  exec 3<&-
}

stop() { kill -INT "$PID"; wait "$PID" 2>/dev/null || true; }

seed_games() {
  local data=$1 n=$2
  start "$data"
  for _ in $(seq "$n"); do
    local c id tok
    c=$(curl -s -X POST "http://$ADDR/api/games" -H 'content-type: application/json' \
      -d '{"game":"raja-pasu","mode":"match","opponent":{"kind":"hotseat"}}')
    id=$(sed 's/.*"id":"\([^"]*\)".*/\1/' <<<"$c")
    tok=$(sed 's/.*"token":"\([^"]*\)".*/\1/' <<<"$c")
    for mv in G a; do
      curl -s -o /dev/null -X POST "http://$ADDR/api/games/$id/moves" -H 'content-type: application/json' \
        -d "{\"move\":\"$mv\",\"token\":\"$tok\"}"
    done
  done
  stop
}

measure() {
  local label=$1 data=$2
  for i in $(seq "$RUNS"); do
    start "$data"
    curl -sf -o /dev/null "http://$ADDR/"
    local t_page=$(( $(now_ms) - T0 ))
    curl -sf -o /dev/null "http://$ADDR/app.js"
    local t_js=$(( $(now_ms) - T0 ))
    echo "$label run $i: listening after ${T_LISTEN} ms, page served after ${t_page} ms, app.js after ${t_js} ms"
    stop
  done
}

rm -rf "$WORK/fresh"
for i in $(seq "$RUNS"); do
  rm -rf "$WORK/fresh"
  RUNS_SAVE=$RUNS; RUNS=1
  measure "fresh database" "$WORK/fresh" | sed "s/run 1/run $i/"
  RUNS=$RUNS_SAVE
done
if [ "$GAMES" -gt 0 ]; then
  seed_games "$WORK/full" "$GAMES"
  measure "$GAMES unfinished games" "$WORK/full"
fi
