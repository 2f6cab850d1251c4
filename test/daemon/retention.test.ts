/**
 * Bounded growth (issue 38): the daemon's daily job prunes `task_history` and `changes` by their
 * retention and gives the freed pages back to the file system. The real daemon (its store on a
 * thread of its own, as `run` wires it) against the real simulator, a real SQLite file, one
 * manual clock; a year of old rows stands for the months of churn before.
 */
import { statSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../src/domain/index.js';
import { DEFAULT_PAGE_SIZE } from '../../src/mirror/types.js';
import type { SqliteDb } from '../../src/store/database.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { checkIntegrity } from '../reliability/helpers.js';
import { mirrorDifferences } from './convergence/compare.js';
import { DaemonHost } from './convergence/host.js';
import { ClockDriver } from './convergence/settle.js';

const TOKEN = 'glt_test_retention';
const DAY = 86_400_000;
const OLD_ROWS = 3_000;

/** Rows of about 1 KB each, in `task_history` (400 days old) and `changes` (40 days old). */
function oldRows(db: SqliteDb, now: number): void {
  const history = db.prepare(
    `INSERT INTO task_history (task_id, project_id, observed_at, field, new_value)
     VALUES (?, 'p_1', ?, 'name', ?)`,
  );
  const change = db.prepare(
    `INSERT INTO changes (committed_at, batch, entity, project_id, entity_id, op, data)
     VALUES (?, 0, 'task', 'p_1', ?, 'insert', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < OLD_ROWS; i++) {
      history.run(`t_old_${i}`, new Date(now - 400 * DAY + i).toISOString(), 'x'.repeat(1_000));
      change.run(new Date(now - 40 * DAY + i).toISOString(), `t_old_${i}`, 'y'.repeat(1_000));
    }
  })();
}

describe("the daemon's daily retention", () => {
  it('prunes history and changes past their retention and gives the pages back', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 23, 23, 50, 0));
    const sim = await startTestSimulator({ clock, projects: 1, tasks: [30], tokens: [TOKEN] });
    const { db, file } = tempDatabase();
    const host = new DaemonHost(sim, clock, file, DEFAULT_PAGE_SIZE);
    onTestFinished(() => host.close());
    const version = () => Promise.resolve(db.pragma('data_version', { simple: true }) as number);
    const driver = new ClockDriver(sim, clock, host, version, Date.now() + 50_000);
    await host.start();
    await driver.drive(host.started, 60_000, 'the start-up');
    await driver.runUntil(
      async () => (await mirrorDifferences(db, sim.service)).length === 0,
      clock.now() + 60_000,
    );
    const count = (table: string) =>
      db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const livePages = db.pragma('page_count', { simple: true }) as number;

    oldRows(db, clock.now());
    const grownPages = db.pragma('page_count', { simple: true }) as number;
    expect(grownPages).toBeGreaterThan(livePages + 1_000);
    // Today's churn, which the retention keeps.
    const kept = sim.service.createTask('p_1', { name: 'created today' });
    await driver.advance(60_000);
    expect(db.prepare('SELECT count(*) FROM tasks WHERE id = ?').pluck().get(kept.id)).toBe(1);

    // The daily job runs at 00:15 UTC.
    await driver.advance(Date.UTC(2026, 10, 24, 0, 20, 0) - clock.now());
    expect(count('task_history')).toBeLessThan(10);
    expect(
      db.prepare("SELECT count(*) FROM task_history WHERE task_id LIKE 't_old_%'").pluck().get(),
    ).toBe(0);
    // A prefix by seq (the feed's cursor never skips): today's insert, after the old rows, stays.
    expect(
      db
        .prepare("SELECT op FROM changes WHERE entity = 'task' AND entity_id = ?")
        .pluck()
        .all(kept.id),
    ).toEqual(['insert']);
    expect(
      db.prepare("SELECT count(*) FROM changes WHERE entity_id LIKE 't_old_%'").pluck().get(),
    ).toBe(0);
    // Given back (the reconcile after the job may free a page or two again).
    expect(db.pragma('freelist_count', { simple: true })).toBeLessThan(10);
    expect(db.pragma('page_count', { simple: true })).toBeLessThan(livePages + 50);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(statSync(file).size).toBeLessThan((livePages + 50) * 4_096);
    expect(await mirrorDifferences(db, sim.service)).toEqual([]);
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  }, 60_000);
});
