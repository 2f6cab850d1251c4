#!/usr/bin/env bash
# The tests whose expectations depend on "today" (the views compare with the database's
# CURRENT_TIMESTAMP, the fixtures with the process's clock), run with the wall clock of every
# process (node, SQLite, DuckDB, the CLI's children) frozen at 23:59:30 UTC by libfaketime
# (Debian's faketime): a test that read the day twice and met two would fail here. Timers run on
# the monotonic clock, which is left alone. About a minute.
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
# vitest itself, not through npx: no npm process runs with the clock frozen.
LD_PRELOAD="$lib" node_modules/.bin/vitest run "${files[@]}" "$@"
