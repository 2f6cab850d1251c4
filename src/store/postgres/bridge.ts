/**
 * A synchronous bridge to PostgreSQL. The mirror's store is synchronous (a pass commit, an
 * event and an outbox answer each run inside one synchronous transaction, as better-sqlite3
 * gives them), so node-postgres, which is asynchronous, runs in a worker thread; each request
 * is posted to it and this thread waits on a shared flag (`Atomics.wait`) until the answer is on
 * the port. The event loop is held meanwhile, exactly as a SQLite statement holds it.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { PoolConfig } from 'pg';
import { StoreError } from '../../domain/index.js';
import { WORKER_SOURCE } from './bridge-worker.js';

/** How long one request may take, connection included, before the bridge gives up, in ms. */
export const BRIDGE_TIMEOUT_MS = 150_000;

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

/** The worker and its channel; `query` blocks until PostgreSQL has answered. */
export class SyncBridge {
  private readonly worker: Worker;
  private readonly port: MessageChannel['port1'];
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;

  /**
   * Starts the worker and opens the session connection with `config`, running each of
   * `session` (SET statements) on it first. Throws a `PgError` when it cannot connect.
   */
  constructor(config: PoolConfig, session: readonly string[]) {
    const channel = new MessageChannel();
    this.port = channel.port1;
    const pgPath = createRequire(import.meta.url).resolve('pg');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { pgPath, port: channel.port2, signal: this.signal, config, session },
      transferList: [channel.port2],
    });
    // The worker must not keep a finished process alive; requests wait on it explicitly.
    this.worker.unref();
    try {
      this.call({ kind: 'connect' });
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Runs one request on the session connection and returns its answer. */
  query(query: BridgeQuery): BridgeResult {
    if (this.closed) throw new StoreError('the PostgreSQL connection is closed');
    return this.call({ kind: 'query', ...query }) as BridgeResult;
  }

  /** Ends the session connection and the worker. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.call({ kind: 'close' });
    } catch {
      // The connection is going anyway.
    }
    void this.worker.terminate();
  }

  private call(request: object): BridgeResult | { ok: true } {
    // The worker counts its answers. A wake-up alone proves nothing: the previous answer's
    // notify can come late, after that answer was read, and wake this wait before its answer.
    const answered = Atomics.load(this.signal, 0);
    this.port.postMessage(request);
    const deadline = Date.now() + BRIDGE_TIMEOUT_MS;
    while (Atomics.load(this.signal, 0) === answered && Date.now() < deadline) {
      Atomics.wait(this.signal, 0, answered, deadline - Date.now());
    }
    const received = receiveMessageOnPort(this.port);
    if (received === undefined) {
      // A late answer would be taken for the next request's: this connection is done.
      this.closed = true;
      void this.worker.terminate();
      throw new StoreError(`PostgreSQL did not answer within ${BRIDGE_TIMEOUT_MS / 1000} s`);
    }
    const answer = received.message as Answer | { ok: true };
    if ('error' in answer && answer.error) {
      throw new PgError(answer.error.message, answer.error.code);
    }
    return answer as BridgeResult | { ok: true };
  }
}
