/**
 * A synchronous bridge to PostgreSQL. The mirror's units of work are synchronous (a pass commit,
 * an event and an outbox answer each run inside one synchronous transaction, as better-sqlite3
 * gives them), so node-postgres, which is asynchronous, runs in a session worker
 * (`session-worker.ts`); each request is posted to it and the calling thread waits on a shared
 * flag (`Atomics.wait`) until the answer is on the port. That thread is the store thread
 * (`src/units/thread.ts`), never the main one: a daemon's event loop does not wait on PostgreSQL.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { PoolConfig } from 'pg';
import { StoreError } from '../../domain/index.js';

/** How long one request may take, connection included, before the bridge gives up, in ms. */
export const BRIDGE_TIMEOUT_MS = 90_000;

/** A request's answer: its last statement's rows, column names and changed row count. */
export interface BridgeResult {
  rows: unknown[];
  columns: string[];
  changes: number;
}

/** One statement (or several, without values) to run on the session connection. */
export interface BridgeQuery {
  text: string;
  values?: unknown[];
  /** Rows as arrays instead of objects. */
  array?: boolean;
  /** True inside a transaction: a lost connection must fail it, not reconnect under it. */
  inTransaction?: boolean;
}

/** A PostgreSQL error as the bridge passes it on: its message and SQLSTATE. */
export class PgError extends StoreError {
  /** PostgreSQL's SQLSTATE, such as `40P01` for a deadlock. */
  readonly sqlState: string | undefined;

  constructor(message: string, sqlState: string | undefined) {
    super(message);
    this.name = 'PgError';
    this.sqlState = sqlState;
  }
}

type Answer =
  (BridgeResult & { error?: undefined }) | { error: { message: string; code?: string } };

/** The session worker's module: compiled, or the `.ts` beside this file when run from source. */
function sessionWorkerUrl(): URL {
  const source = import.meta.url.endsWith('.ts');
  return new URL(source ? './session-worker.ts' : './session-worker.js', import.meta.url);
}

/** The worker and its channel; `query` blocks until PostgreSQL has answered. */
export class SyncBridge {
  private readonly config: PoolConfig;
  private readonly session: readonly string[];
  private worker: Worker | undefined;
  private port: MessageChannel['port1'] | undefined;
  private signal = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;

  /**
   * Starts the worker and opens the session connection with `config`, running each of
   * `session` (SET statements) on it first. Throws a `PgError` when it cannot connect.
   */
  constructor(config: PoolConfig, session: readonly string[]) {
    this.config = config;
    this.session = session;
    try {
      this.start();
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /**
   * Runs one request on the session connection and returns its answer. After a session that
   * did not answer in time (a partition, a server gone), the next request outside a transaction
   * starts a new worker and connection: the daemon reconnects on its own.
   */
  query(query: BridgeQuery): BridgeResult {
    if (this.closed) throw new StoreError('the PostgreSQL connection is closed');
    if (this.worker === undefined) {
      if (query.inTransaction) {
        throw new StoreError('the connection to PostgreSQL was lost during a transaction');
      }
      this.start();
    }
    return this.call({ kind: 'query', ...query }) as BridgeResult;
  }

  /** Ends the session connection and the worker. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.worker === undefined) return;
    try {
      this.call({ kind: 'close' });
    } catch {
      // The connection is going anyway.
    }
    void this.worker?.terminate();
  }

  /** A new session worker and its connection. */
  private start(): void {
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.signal = new Int32Array(new SharedArrayBuffer(4));
    this.worker = new Worker(sessionWorkerUrl(), {
      workerData: {
        port: channel.port2,
        signal: this.signal,
        config: this.config,
        session: this.session,
      },
      transferList: [channel.port2],
    });
    // The worker must not keep a finished process alive; requests wait on it explicitly.
    this.worker.unref();
    this.call({ kind: 'connect' });
  }

  private call(request: object): BridgeResult | { ok: true } {
    const { port, signal, worker } = this;
    if (port === undefined || worker === undefined) throw new StoreError('no PostgreSQL session');
    // The worker counts its answers. A wake-up alone proves nothing: the previous answer's
    // notify can come late, after that answer was read, and wake this wait before its answer.
    const answered = Atomics.load(signal, 0);
    port.postMessage(request);
    const deadline = Date.now() + BRIDGE_TIMEOUT_MS;
    while (Atomics.load(signal, 0) === answered && Date.now() < deadline) {
      Atomics.wait(signal, 0, answered, deadline - Date.now());
    }
    const received = receiveMessageOnPort(port);
    if (received === undefined) {
      // A late answer would be taken for the next request's: this session is done, and the
      // next request starts another.
      this.worker = undefined;
      this.port = undefined;
      void worker.terminate();
      throw new StoreError(`PostgreSQL did not answer within ${BRIDGE_TIMEOUT_MS / 1000} s`);
    }
    const answer = received.message as Answer | { ok: true };
    if ('error' in answer && answer.error) {
      throw new PgError(answer.error.message, answer.error.code);
    }
    return answer as BridgeResult | { ok: true };
  }
}
