/**
 * The worker side of the synchronous bridge to PostgreSQL, as source text run with
 * `new Worker(source, { eval: true })`: plain JavaScript, so it runs the same from `src/` under
 * the tests and from `dist/` installed. It owns node-postgres: one pool, one session connection
 * on which every request runs in order (a transaction spans requests, and TEMP tables live in
 * the session), and type parsers that hand values back as the SQLite mirror does: integers and
 * numerics as numbers, dates as 'YYYY-MM-DD', times as ISO-8601 UTC with milliseconds, booleans
 * as 1 and 0, JSON as its text.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const { port, signal, config, session } = workerData;

const OID = { int8: 20, numeric: 1700, date: 1082, timestamp: 1114, timestamptz: 1184, bool: 16,
  json: 114, jsonb: 3802 };

function isoTime(text) {
  const ms = Date.parse(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

const parsers = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.date]: (text) => text,
  [OID.timestamp]: (text) => isoTime(text + 'Z'),
  [OID.timestamptz]: isoTime,
  [OID.bool]: (text) => (text === 't' ? 1 : 0),
  [OID.json]: (text) => text,
  [OID.jsonb]: (text) => text,
};
const types = {
  getTypeParser(oid, format) {
    return parsers[oid] ?? pg.types.getTypeParser(oid, format);
  },
};

// verify-ca: the certificate chain is checked, not the server's name (a function cannot be
// passed to a worker, so the main thread sends a flag; see SKIP_NAME_CHECK in target.ts).
const { projmirrorSkipNameCheck, ...ssl } = typeof config.ssl === 'object' ? config.ssl : {};
if (projmirrorSkipNameCheck) config.ssl = { ...ssl, checkServerIdentity: () => undefined };
const pool = new pg.Pool({ ...config, types });
// An idle connection the server drops is replaced at the next request; the pool must not crash.
pool.on('error', () => {});
let client;
let broken = false;

function reply(message) {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function failure(error) {
  return {
    error: {
      message: String(error && error.message ? error.message : error),
      code: error && typeof error.code === 'string' ? error.code : undefined,
    },
  };
}

// A session connection that broke is released and replaced at the next request, unless that
// request belongs to a transaction begun on the broken one: that transaction is lost, and its
// statements must not go on outside it.
async function connect() {
  const fresh = await pool.connect();
  fresh.on('error', () => {
    broken = true;
  });
  try {
    for (const statement of session) await fresh.query(statement);
  } catch (error) {
    fresh.release(error);
    throw error;
  }
  client = fresh;
  broken = false;
}

async function sessionClient(inTransaction) {
  if (client && !broken) return client;
  if (client) {
    client.release(true);
    client = undefined;
  }
  if (inTransaction) throw new Error('the connection to PostgreSQL was lost during a transaction');
  await connect();
  return client;
}

async function handle(request) {
  if (request.kind === 'connect') {
    await connect();
    return { ok: true };
  }
  if (request.kind === 'close') {
    if (client) client.release(broken);
    await pool.end();
    return { ok: true };
  }
  const live = await sessionClient(request.inTransaction);
  const result = await live.query({
    text: request.text,
    values: request.values,
    rowMode: request.array ? 'array' : undefined,
  });
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return {
    rows: last.rows ?? [],
    columns: (last.fields ?? []).map((field) => field.name),
    changes: last.rowCount ?? 0,
  };
}

port.on('message', (request) => {
  handle(request).then(reply, (error) => reply(failure(error)));
});
`;
