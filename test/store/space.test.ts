/**
 * The mirror's space (issue 38): a new mirror gives the pages a prune frees back to the file
 * system, a small mirror made before is converted when opened, and `mirrorSpace` reports what
 * `status` shows. Real SQLite files.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { MirrorFacts } from '../../src/store/mirror-facts.js';
import { convertToIncremental, mirrorSpace } from '../../src/store/space.js';
import { checkIntegrity } from '../reliability/helpers.js';
import { tempDatabase, tempDir } from '../fixtures/db.js';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 21, 12, 0, 0);

/** `rows` history rows of about 1 KB, one a minute, the newest `ageDays` old. */
function oldHistory(db: Database.Database, rows: number, ageDays: number): void {
  const insert = db.prepare(
    `INSERT INTO task_history (task_id, project_id, observed_at, field, new_value)
     VALUES (?, 'p_1', ?, 'name', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      insert.run(
        `t_${i}`,
        new Date(now - ageDays * DAY - i * 60_000).toISOString(),
        'x'.repeat(1_000),
      );
    }
  })();
}

describe("the mirror's space", () => {
  it('a new mirror gives the pages its prune freed back: the file shrinks to its live data', async () => {
    const { db, file } = tempDatabase();
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    const empty = db.pragma('page_count', { simple: true }) as number;
    oldHistory(db, 5_000, 400);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const grown = statSync(file).size;
    expect(grown).toBeGreaterThan(5_000_000);

    const facts = new MirrorFacts(db);
    expect(await facts.pruneHistory(now, 365)).toBe(5_000);
    const freed = (await mirrorSpace(db))?.freePages ?? 0;
    expect(freed).toBeGreaterThan(1_000);
    expect(await facts.reclaimSpace()).toBe(freed);
    db.pragma('wal_checkpoint(TRUNCATE)');

    const space = await mirrorSpace(db);
    expect(space).toMatchObject({ engine: 'sqlite', freePages: 0, autoVacuum: 'incremental' });
    expect(db.pragma('page_count', { simple: true })).toBeLessThanOrEqual(empty + 2);
    expect(statSync(file).size).toBeLessThan(grown / 10);
    expect(space?.bytes).toBe(statSync(file).size);
    expect(await facts.reclaimSpace()).toBe(0);
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  });

  it('reports the free pages and the write-ahead log as they are', async () => {
    const { db, file } = tempDatabase();
    oldHistory(db, 2_000, 10);
    db.prepare('DELETE FROM task_history').run();
    const space = await mirrorSpace(db);
    expect(space?.freePages).toBe(db.pragma('freelist_count', { simple: true }));
    expect(space?.freeBytes).toBe((space?.freePages ?? 0) * 4_096);
    expect(space?.walBytes).toBe(statSync(`${file}-wal`).size);
    expect(space?.walBytes).toBeGreaterThan(1_000_000);
  });

  it('converts a small mirror made before to incremental when opened; a large one keeps its mode', async () => {
    const file = join(tempDir(), 'old.sqlite');
    openDatabase(file).close();
    // As a mirror made before issue 38: auto_vacuum NONE, with some data.
    const old = new Database(file);
    old.pragma('auto_vacuum = NONE');
    old.exec('VACUUM');
    oldHistory(old, 500, 10);
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0);
    expect(convertToIncremental(old, 1_024)).toBe(false);
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0);
    old.close();

    const db = openDatabase(file);
    try {
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(db.prepare('SELECT count(*) FROM task_history').pluck().get()).toBe(500);
    } finally {
      db.close();
    }
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  });
});
