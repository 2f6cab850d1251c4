#!/usr/bin/env bash
# A full disk, for real (issue 38): the mirror on a tmpfs of 4 MiB that a 20,000-task project
# fills. `sync` exits 1 with one line and leaves the file intact (integrity_check); `run` answers
# /healthz 503 with "disk": "full"; once the tmpfs is grown, the daemon says the disk has room
# again and the mirror converges. Needs root (mount); run by .ci/run after `npm test`, about 2 min.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$PWD/bin/projmirror.js"
work=$(mktemp -d)
disk="$work/disk"
mkdir "$disk"
mount -t tmpfs -o size=4m tmpfs "$disk"
sim_pid=""
run_pid=""
cleanup() {
  [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  umount "$disk" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "disk-full: FAIL: $*" >&2
  [ -f "$work/run.log" ] && grep -v '"msg":"project synced"' "$work/run.log" | tail -15 | cut -c1-300 >&2
  exit 1
}
ok() { echo "disk-full: ok: $*"; }

token=glt_test_disk_full_0123456789abcd
printf '%s' "$token" >"$work/token"
chmod 600 "$work/token"
node "$bin" simulate --port 0 --projects 1 --tasks 20000 --no-limits --token "$token" >"$work/sim.json" 2>"$work/sim.log" &
sim_pid=$!
for _ in $(seq 100); do [ -s "$work/sim.json" ] && break; sleep 0.1; done
base_url=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).baseUrl)' "$work/sim.json")
realtime_url=${base_url/http:/ws:}/realtime
db="$disk/mirror.sqlite"
integrity() {
  node -e 'const D = require("better-sqlite3"); const db = new D(process.argv[1]); console.log(db.pragma("integrity_check", { simple: true }), db.prepare("SELECT count(*) FROM tasks").pluck().get()); db.close();' "$1"
}

# sync fills the disk: exit 1, one line on stderr, nothing corrupt.
set +e
node "$bin" sync --base-url "$base_url" --token-file "$work/token" --db "$db" >"$work/sync.out" 2>"$work/sync.err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "sync on a full disk exited $rc, not 1"
grep -v '^{' "$work/sync.err" >"$work/sync.lines" || true
[ "$(wc -l <"$work/sync.lines")" -eq 1 ] || fail "sync said more than one line: $(cat "$work/sync.lines")"
grep -q 'database or disk is full' "$work/sync.lines" || fail "sync's line: $(cat "$work/sync.lines")"
read -r check count < <(integrity "$db")
[ "$check" = ok ] || fail "integrity_check after sync: $check"
ok "sync exits 1 with one line ($(cat "$work/sync.lines")); integrity_check ok, $count tasks"

# run on the full disk: /healthz 503 with "disk": "full".
node "$bin" run --base-url "$base_url" --token-file "$work/token" --db "$db" \
  --realtime-url "$realtime_url" --metrics-port 0 >"$work/run.log" 2>&1 &
run_pid=$!
port=""
for _ in $(seq 200); do
  port=$(node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) { try { const j = JSON.parse(l); if (j.msg === "metrics listening") { console.log(j.port); break; } } catch {} }' "$work/run.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "run did not serve metrics: $(tail -3 "$work/run.log")"
health() { node -e 'fetch(process.argv[1]).then(async (r) => console.log(r.status, JSON.stringify(await r.json())), () => console.log("000 {}"))' "http://127.0.0.1:$port/healthz"; }
seen=""
for _ in $(seq 300); do
  seen=$(health)
  case "$seen" in 503*'"disk":"full"'*) break ;; esac
  sleep 0.2
done
case "$seen" in 503*'"disk":"full"'*) ok "/healthz on a full disk: $seen" ;; *) fail "/healthz never said the disk is full: $seen" ;; esac
# While it lasts, the passes retried each minute log nothing more at warn or above: one line in all.
sleep 70
noisy=$(grep -E '"level":"(warn|error|fatal)"' "$work/run.log" | grep -v '"msg":"the disk is full' || true)
[ -z "$noisy" ] || fail "lines beside the one warning while the disk is full: $(echo "$noisy" | cut -c1-300)"
warnings=$(grep -c '"msg":"the disk is full' "$work/run.log" || true)
[ "$warnings" -eq 1 ] || fail "$warnings warnings that the disk is full, not 1"
ok "one warning in all over a minute of retried passes"

# Room again: the daemon converges on its own and says so.
mount -o remount,size=64m "$disk"
for _ in $(seq 900); do
  grep -q '"msg":"the disk has room again"' "$work/run.log" && break
  kill -0 "$sim_pid" 2>/dev/null || fail "the simulator stopped: $(tail -5 "$work/sim.log")"
  sleep 0.2
done
grep -q '"msg":"the disk has room again"' "$work/run.log" || fail "the daemon never said the disk has room again"
for _ in $(seq 300); do
  seen=$(health)
  case "$seen" in 200*'"disk":"ok"'*) break ;; esac
  sleep 0.2
done
case "$seen" in 200*'"disk":"ok"'*) ok "/healthz once there is room: $seen" ;; *) fail "/healthz: $seen" ;; esac
kill "$run_pid"
wait "$run_pid" || fail "run exited $? on SIGTERM"
run_pid=""
read -r check count < <(integrity "$db")
[ "$check" = ok ] && [ "$count" -eq 20000 ] || fail "after room again: integrity $check, $count tasks"
ok "converged: integrity_check ok, $count tasks"
