// Lets a child process see the mirror file as a full disk or a read-only file would make it look,
// by redirecting the store's `better-sqlite3` import to faulty-database.mjs (see there). Loaded
// with `--import` before the CLI; without RELIABILITY_SQLITE_FAULT it changes nothing.
import { register } from 'node:module';
import process from 'node:process';

if (process.env.RELIABILITY_SQLITE_FAULT) register('./sqlite-fault-hooks.mjs', import.meta.url);
