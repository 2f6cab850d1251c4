/**
 * The reader process of benchmark 8b: runs one query (`argv[3]`) in a loop on its own connection
 * to the database at `argv[2]` (the mirror's schema on its search path), as a BI tool would, and
 * on a second connection samples `pg_stat_activity` for any other session of the database
 * waiting on a lock. Prints `ready` once its first query is under way; when stdin closes it
 * cancels the query in hand and prints one JSON line (`ReaderReport`).
 */
import pg from 'pg';
import { DEFAULT_PG_SCHEMA } from '../src/store/postgres/target.js';

/** How often the lock sampler looks at `pg_stat_activity`, in ms. */
export const LOCK_SAMPLE_INTERVAL_MS = 10;

/** What the reader prints at the end. */
export interface ReaderReport {
  /** Queries begun, the one cancelled at the end included. */
  queries: number;
  /** Mean time of one finished query, in ms (0 when none finished). */
  meanQueryMs: number;
  samples: number;
  /** Samples in which another session of the database waited on a lock. */
  lockWaits: number;
  /** The statements seen waiting, each once. */
  waiting: string[];
}

const WAITING_SQL = `SELECT query FROM pg_stat_activity
  WHERE datname = current_database() AND pid <> ALL ($1::int[]) AND wait_event_type = 'Lock'`;

/** PostgreSQL's SQLSTATE for a query cancelled on request. */
const QUERY_CANCELED = '57014';

interface Session {
  client: pg.Client;
  pid: number;
}

/**
 * A connection with the mirror's schema on its search path. Its queries run in one backend (no
 * parallel workers): on the benchmark's two cores, one is the reader's.
 */
async function connect(url: string): Promise<Session> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'projmirror-bench-reader',
  });
  await client.connect();
  await client.query(`SET search_path TO ${DEFAULT_PG_SCHEMA}`);
  await client.query('SET max_parallel_workers_per_gather = 0');
  const result = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { client, pid: result.rows[0]?.pid ?? 0 };
}

/** Samples lock waits of the database's other sessions until `stopped()`. */
async function sampleLockWaits(sampler: Session, readerPid: number, stopped: () => boolean) {
  const waiting = new Set<string>();
  let samples = 0;
  let lockWaits = 0;
  while (!stopped()) {
    const result = await sampler.client.query<{ query: string }>(WAITING_SQL, [
      [readerPid, sampler.pid],
    ]);
    samples += 1;
    if (result.rows.length > 0) lockWaits += 1;
    for (const row of result.rows) waiting.add(row.query.replace(/\s+/g, ' ').slice(0, 120));
    await new Promise((resolve) => setTimeout(resolve, LOCK_SAMPLE_INTERVAL_MS));
  }
  return { samples, lockWaits, waiting: [...waiting] };
}

async function main(url: string, query: string): Promise<ReaderReport> {
  const reader = await connect(url);
  const sampler = await connect(url);
  let stopping = false;
  const sampling = sampleLockWaits(sampler, reader.pid, () => stopping);
  process.stdin.on('end', () => {
    stopping = true;
    void sampler.client.query('SELECT pg_cancel_backend($1)', [reader.pid]);
  });
  process.stdin.resume();
  let queries = 0;
  let finished = 0;
  let queryMs = 0;
  while (!stopping) {
    const start = performance.now();
    const running = reader.client.query(query);
    queries += 1;
    if (queries === 1) console.log('ready');
    try {
      await running;
      queryMs += performance.now() - start;
      finished += 1;
    } catch (error) {
      if ((error as { code?: string }).code !== QUERY_CANCELED) throw error;
    }
  }
  const sampled = await sampling;
  await Promise.all([reader.client.end(), sampler.client.end()]);
  return { queries, meanQueryMs: finished === 0 ? 0 : queryMs / finished, ...sampled };
}

const [url, query] = process.argv.slice(2);
if (url === undefined || query === undefined) {
  console.error('usage: postgres-reader URL QUERY');
  process.exitCode = 2;
} else {
  console.log(JSON.stringify(await main(url, query)));
}
