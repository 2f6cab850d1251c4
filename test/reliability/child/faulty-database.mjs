// better-sqlite3 with one fault, chosen by RELIABILITY_SQLITE_FAULT:
// - `readonly`: every connection opens with SQLITE_OPEN_READONLY, which is what SQLite does by
//   itself when the process may read the file but not write it (a chmod'ed file, a read-only
//   mount). Used because these tests may run as root, which no file permission stops.
// - `full:N`: every connection may grow the file by at most N pages (`PRAGMA max_page_count`),
//   after which SQLite answers SQLITE_FULL exactly as it does when the disk is full.
import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(import.meta.url);
const Real = require('better-sqlite3');
const fault = process.env.RELIABILITY_SQLITE_FAULT ?? '';

/** Opens a connection as `better-sqlite3` would, with the fault applied. */
export default function Database(file, options = {}) {
  if (fault === 'readonly') return new Real(file, { ...options, readonly: true });
  const db = new Real(file, options);
  const full = /^full:(\d+)$/.exec(fault);
  if (full) {
    const pages = db.pragma('page_count', { simple: true });
    db.pragma(`max_page_count = ${pages + Number(full[1])}`);
  }
  return db;
}
