/**
 * `daemon_state`: small named JSON values kept across restarts (the learned budget, the plan).
 * On a PostgreSQL mirror shared by daemons on several machines, each machine keeps its own: the
 * keys are prefixed with the host name (`a.example.com/budget:token`), so that two machines whose
 * tokens have the same label (both read `/etc/projmirror/token`) never mix their budgets.
 */
import { connectionOf, type MirrorHandle } from './handle.js';
import { hostname } from 'node:os';
import { dialectOf } from './db.js';

/** Keys of `daemon_state`. */
export const STATE_KEYS = {
  /** The budget of a mirror's only token before several tokens (read to restore it, once). */
  budget: 'budget',
  plan: 'plan',
  daemon: 'daemon',
  startup: 'startup',
  /** Which token reads each project. */
  routing: 'routing',
} as const;

/** The key of one token's learned budget: `budget:<label>`. */
export function budgetKey(label: string): string {
  return `${STATE_KEYS.budget}:${label}`;
}

/** Reads and writes `daemon_state` values as JSON. */
export class DaemonStateRepository {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;
  private readonly scope: string;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.scope = dialectOf(db) === 'postgres' ? `${hostname()}/` : '';
    this.getStmt = db.prepare<[string], { value: string }>(
      'SELECT value FROM daemon_state WHERE key = ?',
    );
    this.setStmt = db.prepare(
      `INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM daemon_state WHERE key = ?');
  }

  async delete(key: string): Promise<void> {
    await this.deleteStmt.run(this.scope + key);
  }

  /** The value under `key`, or undefined when absent or unreadable. */
  async get<T>(key: string): Promise<T | undefined> {
    const row = await this.getStmt.get(this.scope + key);
    if (!row) return undefined;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: unknown, at: string): Promise<void> {
    await this.setStmt.run(this.scope + key, JSON.stringify(value), at);
  }
}
