// A BI tool's view of the mirror, as a separate process: opens the file read-only with no busy
// timeout at all (plain reads must never need one), prints "ready", then queries in a loop until
// its stdin closes, and prints one JSON line: how many reads it made, every distinct state it saw
// ("total/marks": the task count, and how many distinct `round %` names the tasks carry), and every
// error. Usage: node reader.mjs MIRROR_FILE
import process from 'node:process';
import { setImmediate } from 'node:timers';
import Database from 'better-sqlite3';

const db = new Database(process.argv[2], { readonly: true, timeout: 0 });
const state = db.prepare(
  `SELECT count(*) AS total,
          count(DISTINCT CASE WHEN name LIKE 'round %' THEN name END) AS marks
   FROM tasks`,
);
const seen = {};
const errors = [];
let reads = 0;
let open = true;
process.stdin.on('end', () => (open = false)).resume();
process.stdout.write('ready\n');
while (open) {
  try {
    const { total, marks } = state.get();
    const key = `${total}/${marks}`;
    seen[key] = (seen[key] ?? 0) + 1;
  } catch (error) {
    errors.push(`${error.code ?? error.name}: ${error.message}`);
  }
  reads += 1;
  // Let the stdin 'end' event in once in a while.
  if (reads % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
}
db.close();
process.stdout.write(`${JSON.stringify({ reads, seen, errors })}\n`);
