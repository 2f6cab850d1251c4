#!/usr/bin/env bash
# The tests whose expectations depend on "today" (the views compare with the database's
# CURRENT_TIMESTAMP, the fixtures with the process's clock), run with the wall clock of every
# process (node, SQLite, DuckDB, the CLI's children) frozen at 23:59:30 UTC by libfaketime
# (Debian's faketime): a test that read the day twice and met two would fail here. Timers run on
# the monotonic clock, which is left alone. About a minute.
#
# Under libfaketime, vitest's own process sometimes never exits after its summary: its main
# thread waits on a futex (1 run in 8 here on 2026-11-28, and a CI run that hung 74 minutes;
# libfaketime's issues #331 and #373). So the results are read from vitest's JSON report: once
# it is written, vitest has 20 s to exit, and is then stopped, its verdict the report's.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1 || true)
if [ -z "$lib" ]; then
  echo "test/midnight.sh: libfaketime not found (apt-get install faketime)" >&2
  exit 1
fi
files=(
  test/report/views.test.ts
  test/report/report.test.ts
  test/report/duckdb.test.ts
  test/report/cli.test.ts
  test/report/analyst-questions.test.ts
  test/report/html.test.ts
  test/report/timezone.test.ts
  test/report/column-types.test.ts
  test/store/migration-views.test.ts
)
export FAKETIME="$(date -u +%Y-%m-%d) 23:59:30" DONT_FAKE_MONOTONIC=1 TZ=UTC
# The clock is frozen where the tests will read it, or this run proves nothing.
frozen=$(LD_PRELOAD="$lib" node -e 'console.log(new Date().toISOString().slice(11, 19))')
[ "$frozen" = 23:59:30 ] || { echo "test/midnight.sh: the clock reads $frozen" >&2; exit 1; }
report=$(mktemp -d)/results.json
trap 'rm -rf "$(dirname "$report")"' EXIT
# vitest itself, not through npx: no npm process runs with the clock frozen; in a process group of
# its own (setsid), so that stopping it stops whatever it left running.
LD_PRELOAD="$lib" setsid node_modules/.bin/vitest run "${files[@]}" --reporter=default \
  --reporter=json --outputFile.json="$report" "$@" &
vitest=$!
# Stopped from outside (CI's bound for this step): vitest's group goes too.
trap 'kill -KILL -- "-$vitest" 2>/dev/null; exit 143' TERM INT
grace=20
while kill -0 "$vitest" 2>/dev/null; do
  if [ -s "$report" ]; then
    grace=$((grace - 1))
    if [ "$grace" -le 0 ]; then
      echo "test/midnight.sh: vitest wrote its results but did not exit within 20 s; stopped" >&2
      kill -KILL -- "-$vitest" 2>/dev/null || true
      break
    fi
  fi
  sleep 1
done
status=0
wait "$vitest" || status=$?
[ "$status" -eq 137 ] || exit "$status"
# Stopped after its report: the verdict is the report's.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const ok = r.success === true && r.numFailedTests === 0 && r.numTotalTests > 0;
  console.log(`test/midnight.sh: from the report: ${r.numPassedTests} of ${r.numTotalTests} tests passed`);
  process.exit(ok ? 0 : 1);' "$report"
