/**
 * The PostgreSQL session's worker (see `bridge.ts`): it owns node-postgres, one pool and one
 * session connection on which every request runs in order (a transaction spans requests, and
 * TEMP tables live in the session), with type parsers that hand values back as the SQLite mirror
 * does: integers and numerics as numbers, dates as 'YYYY-MM-DD', times as ISO-8601 UTC with
 * milliseconds, booleans as 1 and 0, JSON as its text. Each answer is counted on a shared flag
 * that the waiting thread (the store thread, never the main one) watches.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import pg, { type PoolClient, type PoolConfig } from 'pg';

interface SessionData {
  port: MessagePort;
  signal: Int32Array;
  config: PoolConfig & { ssl?: { projmirrorSkipNameCheck?: boolean } };
  session: string[];
}

type Request =
  | { kind: 'connect' }
  | { kind: 'close' }
  | { kind: 'query'; text: string; values?: unknown[]; array?: boolean; inTransaction?: boolean };

const { port, signal, config, session } = workerData as SessionData;

const OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  bool: 16,
  json: 114,
  jsonb: 3802,
};

function isoTime(text: string): string {
  const ms = Date.parse(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

const parsers: Record<number, (text: string) => unknown> = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.date]: (text) => text,
  [OID.timestamp]: (text) => isoTime(`${text}Z`),
  [OID.timestamptz]: isoTime,
  [OID.bool]: (text) => (text === 't' ? 1 : 0),
  [OID.json]: (text) => text,
  [OID.jsonb]: (text) => text,
};
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text');
  },
};

// verify-ca: the certificate chain is checked, not the server's name (a function cannot be
// passed to a worker, so the store thread sends a flag; see SKIP_NAME_CHECK in target.ts).
if (typeof config.ssl === 'object' && config.ssl !== null) {
  const { projmirrorSkipNameCheck, ...ssl } = config.ssl;
  config.ssl = projmirrorSkipNameCheck ? { ...ssl, checkServerIdentity: () => undefined } : ssl;
}
const pool = new pg.Pool({ ...config, types } as PoolConfig);
// An idle connection the server drops is replaced at the next request; the pool must not crash.
pool.on('error', () => {});
let client: PoolClient | undefined;
let broken = false;

function reply(message: unknown): void {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function failure(error: unknown) {
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
  return {
    error: {
      message: String(message ?? error),
      code: typeof code === 'string' ? code : undefined,
    },
  };
}

/**
 * A session connection that broke is released and replaced at the next request, unless that
 * request belongs to a transaction begun on the broken one: that transaction is lost, and its
 * statements must not go on outside it.
 */
async function connect(): Promise<void> {
  const fresh = await pool.connect();
  fresh.on('error', () => {
    broken = true;
  });
  try {
    for (const statement of session) await fresh.query(statement);
  } catch (error) {
    fresh.release(error as Error);
    throw error;
  }
  client = fresh;
  broken = false;
}

async function sessionClient(inTransaction: boolean | undefined): Promise<PoolClient> {
  if (client && !broken) return client;
  if (client) {
    // Destroyed, not reused: a connection that failed is never handed back to the pool.
    client.release(true);
    client = undefined;
  }
  if (inTransaction) throw new Error('the connection to PostgreSQL was lost during a transaction');
  await connect();
  return client as unknown as PoolClient;
}

async function handle(request: Request): Promise<unknown> {
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
  let result;
  try {
    result = await live.query({
      text: request.text,
      values: request.values,
      ...(request.array ? { rowMode: 'array' as const } : {}),
    });
  } catch (error) {
    // An error without SQLSTATE came from the connection, not the server (a read timeout on a
    // half-open socket, a reset): the client is destroyed at the next request, never reused.
    if (typeof (error as { code?: unknown }).code !== 'string') broken = true;
    throw error;
  }
  const last = (Array.isArray(result) ? result[result.length - 1] : result) as pg.QueryResult;
  return {
    rows: last.rows ?? [],
    columns: (last.fields ?? []).map((field) => field.name),
    changes: last.rowCount ?? 0,
  };
}

port.on('message', (request: Request) => {
  handle(request).then(reply, (error: unknown) => reply(failure(error)));
});
