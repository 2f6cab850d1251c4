import { describe, expect, it } from 'vitest';
import { MirrorFacts } from '../../src/store/mirror-facts.js';
import { tempDatabase } from '../fixtures/db.js';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 21, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function seeded() {
  const { db } = tempDatabase();
  db.prepare(
    `INSERT INTO projects (id, name, active, data, synced_at) VALUES ('p_1', 'One', 1, '{}', ?), ('p_2', 'Two', 1, '{}', ?)`,
  ).run(iso(now), iso(now));
  db.prepare(
    `INSERT INTO sync_state (project_id, backfill, total_count, last_pass_at, last_change_at)
     VALUES ('p_1', 'done', 1200, ?, ?)`,
  ).run(iso(now - 600_000), iso(now - 60_000));
  const history = db.prepare(
    `INSERT INTO task_history (task_id, project_id, observed_at, field, new_value) VALUES ('t_1', 'p_1', ?, 'name', 'x')`,
  );
  for (const age of [400, 366, 364, 1]) history.run(iso(now - age * DAY));
  return { db, facts: new MirrorFacts(db) };
}

describe('MirrorFacts', () => {
  it('sizes projects from the last pass and places their last consistent pass', async () => {
    const { facts } = seeded();
    expect(await facts.taskCounts()).toEqual([
      { id: 'p_1', taskCount: 1200 },
      { id: 'p_2', taskCount: 0 },
    ]);
    expect(await facts.taskCounts(['p_2'])).toEqual([{ id: 'p_2', taskCount: 0 }]);
    expect(await facts.lastPassAt('p_1')).toBe(now - 600_000);
    expect(await facts.lastPassAt('p_2')).toBeUndefined();
  });

  it('prunes history older than the retention, and only that', async () => {
    const { db, facts } = seeded();
    expect(await facts.pruneHistory(now, 365)).toBe(2);
    expect(db.prepare('SELECT count(*) FROM task_history').pluck().get()).toBe(2);
  });

  it('prunes the change feed older than its retention, a prefix by seq, and notes how far', async () => {
    const { db, facts } = seeded();
    // The seeded projects wrote two changes; then three tasks, two of them written 31 days ago.
    const task = db.prepare(
      `INSERT INTO tasks (id, project_id, data, synced_at) VALUES (?, 'p_1', '{}', ?)`,
    );
    for (const id of ['t_1', 't_2', 't_3']) task.run(id, iso(now));
    const seqs = db.prepare('SELECT seq FROM changes ORDER BY seq').pluck().all() as number[];
    expect(seqs).toHaveLength(5);
    db.prepare('UPDATE changes SET committed_at = ? WHERE seq <= ?').run(
      iso(now - 31 * DAY),
      seqs[3],
    );
    db.prepare('UPDATE changes SET committed_at = ? WHERE seq > ?').run(iso(now - DAY), seqs[3]);
    expect(await facts.pruneChanges(now, 30)).toBe(4);
    expect(db.prepare('SELECT seq FROM changes').pluck().all()).toEqual([seqs[4]]);
    const { ChangesRepository } = await import('../../src/store/changes.js');
    expect(await new ChangesRepository(db).prunedThrough()).toBe(seqs[3]);
    // Nothing older left: nothing pruned, the horizon kept.
    expect(await facts.pruneChanges(now, 30)).toBe(0);
    expect(await new ChangesRepository(db).prunedThrough()).toBe(seqs[3]);
  });
});
