/**
 * Where a pass into PostgreSQL spends its time, for benchmark 8: every round trip of the store's
 * PostgreSQL connections (counted and timed from each statement's call until it settled, with the
 * longest COMMIT and transaction), and the server's own execution time of the same statements
 * (`pg_stat_statements`, preloaded by the benchmark's server).
 */
import pg from 'pg';
import { PgConnection } from '../src/store/postgres/pg-connection.js';

/** The server settings the profile needs: statement statistics, and lock waits logged past 10 ms. */
export const PROFILED_SERVER_SETTINGS: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  log_lock_waits: 'on',
  deadlock_timeout: '10ms',
};

/** Round trips of one kind of statement (its first words). */
export interface StatementTally {
  statement: string;
  count: number;
  ms: number;
}

/** What the connections carried while a tally was open. */
export interface RoundTrips {
  count: number;
  /**
   * Time from each statement's call until it settled, summed, in ms: a pass's statements run one
   * at a time on its connection, so its store waited that long on PostgreSQL (the engine's own
   * work, such as the next page's request, may go on meanwhile).
   */
  ms: number;
  longestCommitMs: number;
  /** From BEGIN to COMMIT or ROLLBACK, in ms. */
  longestTransactionMs: number;
  /** The kinds of statement with the most round trips first. */
  statements(): StatementTally[];
}

/** A tally of round trips open until `stop()`. */
export interface RoundTripRecorder {
  readonly trips: RoundTrips;
  stop(): void;
}

/** A statement's kind: its first words, without values or line breaks. */
function kindOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 60);
}

type Query = PgConnection['query'];

/**
 * Counts and times every round trip of this process's PostgreSQL connections until `stop()`.
 * The connection is wrapped at its prototype for the time of the tally; nothing of the store
 * changes.
 */
export function recordRoundTrips(): RoundTripRecorder {
  const original = Object.getOwnPropertyDescriptor(PgConnection.prototype, 'query')!;
  const query = original.value as Query;
  const byKind = new Map<string, StatementTally>();
  /** When each connection's open transaction began. */
  const begunAt = new WeakMap<PgConnection, number>();
  const trips: RoundTrips = {
    count: 0,
    ms: 0,
    longestCommitMs: 0,
    longestTransactionMs: 0,
    statements: () => [...byKind.values()].sort((a, b) => b.count - a.count),
  };
  const settled = (connection: PgConnection, text: string, start: number) => {
    const end = performance.now();
    const kind = kindOf(text);
    const tally = byKind.get(kind) ?? { statement: kind, count: 0, ms: 0 };
    tally.count += 1;
    tally.ms += end - start;
    byKind.set(kind, tally);
    trips.count += 1;
    trips.ms += end - start;
    if (kind.startsWith('BEGIN')) begunAt.set(connection, start);
    if (kind === 'COMMIT' || kind === 'ROLLBACK') {
      if (kind === 'COMMIT') trips.longestCommitMs = Math.max(trips.longestCommitMs, end - start);
      const begun = begunAt.get(connection);
      if (begun !== undefined) {
        trips.longestTransactionMs = Math.max(trips.longestTransactionMs, end - begun);
      }
      begunAt.delete(connection);
    }
  };
  const timed = async function (this: PgConnection, request: Parameters<Query>[0]) {
    const start = performance.now();
    try {
      return await query.call(this, request);
    } finally {
      settled(this, request.text, start);
    }
  };
  Object.defineProperty(PgConnection.prototype, 'query', { ...original, value: timed });
  return {
    trips,
    stop: () => Object.defineProperty(PgConnection.prototype, 'query', original),
  };
}

/** The server's execution of a database's statements since `reset()`. */
export interface ServerTime {
  calls: number;
  /** Execution time summed over the statements (planning excluded), in ms. */
  execMs: number;
}

/** `pg_stat_statements` of the database at `url`, through a connection of its own. */
export class StatementStatistics {
  private readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  /** Creates the extension (in `public`) and forgets what it counted so far. */
  async reset(): Promise<void> {
    await this.withClient(async (client) => {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public');
      await client.query('SELECT public.pg_stat_statements_reset()');
    });
  }

  /** Calls and execution time of the database's statements since `reset()`, ours excluded. */
  async read(): Promise<ServerTime> {
    return await this.withClient(async (client) => {
      const result = await client.query<{ calls: string | null; exec_ms: number | null }>(
        `SELECT sum(calls) AS calls, sum(total_exec_time) AS exec_ms
           FROM public.pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT LIKE '%pg_stat_statements%'`,
      );
      const row = result.rows[0];
      return { calls: Number(row?.calls ?? 0), execMs: Number(row?.exec_ms ?? 0) };
    });
  }

  private async withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  }
}
