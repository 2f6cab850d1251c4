/**
 * Backfill pages written together on PostgreSQL (two a statement, `TaskWriter.putPagesAtOnce`) leave the
 * mirror as SQLite's page-by-page transactions do, and find the same problem on the same page:
 * over random pages (ids repeated within and across them, `X-Total-Count` present or not), tasks
 * the mirror holds already (the same copy, another, another project's), ids seen before in the
 * read and ids a write during the pass guards, from the read's start or from a later pair of
 * pages on; and note the same fields (a page that finds a task seen before notes none).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { MirrorWriter } from '../../src/store/writer/writer.js';
import { PAGES_PER_STATEMENT } from '../../src/store/task-writer.js';
import type { Db } from '../../src/store/db.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { taskRows } from '../../src/store/task-rows.js';
import { newTally } from '../../src/store/write-context.js';
import { FakeClock } from '../fixtures/clock.js';
import { bothEngines } from '../fixtures/both-engines.js';

const AT = '2026-11-25T10:00:00.000Z';
const IDS = Array.from({ length: 16 }, (_, i) => `t${i + 1}`);
const PAGE_SIZE = 3;

/** What the mirror holds of a task before the read: nothing, a copy, another one, another project's. */
type Held = 'absent' | 'same' | 'other' | 'elsewhere';

interface Case {
  pages: Array<{ rows: Array<{ id: string; variant: number }>; totalCount: number | null }>;
  held: Record<string, Held>;
  seen: string[];
  guarded: string[];
  /** The pair of pages before which the write guards them (0: before the read). */
  guardedAt: number;
}

const task = (id: string, variant: number, projectId = 'p1'): Task => ({
  id,
  projectId,
  name: `n${variant}`,
  startDate: `2026-01-0${variant + 1}`,
  endDate: '2026-02-01',
  status: 'InProgress',
  progress: 10 * variant,
  assigneeIds: [['m1'], ['m1', 'm2'], []][variant]!,
  // A field only this variant has: noted with the first page that holds it.
  ...(variant === 2 ? { label: 'rare' } : {}),
});

const cases: fc.Arbitrary<Case> = fc.record({
  pages: fc.array(
    fc.record({
      rows: fc.array(fc.record({ id: fc.constantFrom(...IDS), variant: fc.nat(2) }), {
        minLength: 1,
        maxLength: PAGE_SIZE,
      }),
      totalCount: fc.option(fc.nat(20)),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  held: fc.record(
    Object.fromEntries(
      IDS.map((id) => [
        id,
        // Mostly absent: a backfill's pages are mostly new, the case the statement takes.
        fc.oneof(
          { arbitrary: fc.constant<Held>('absent'), weight: 12 },
          { arbitrary: fc.constantFrom<Held>('same', 'other', 'elsewhere'), weight: 1 },
        ),
      ]),
    ) as Record<string, fc.Arbitrary<Held>>,
  ),
  seen: fc.subarray(IDS, { maxLength: 2 }),
  guarded: fc.subarray(IDS, { maxLength: 2 }),
  guardedAt: fc.nat(2),
});

/**
 * Sets the mirror as `c` says, writes its pages `perWrite` at a time (guarding `c.guarded` at
 * their turn, when `atGuard` is told), and returns the mirror.
 */
async function play(
  db: Db,
  store: MirrorStore,
  c: Case,
  perWrite: number,
  atGuard: () => void = () => {},
) {
  for (const table of [
    'seen_tasks',
    'task_pages',
    'task_assignees',
    'tasks',
    'sync_state',
    'data_fields',
  ]) {
    await db.exec(`DELETE FROM ${table}`);
  }
  // SQLite's pages kept by reference, with the texts they saved (no such tables on PostgreSQL).
  await store.taskPages.remove('p1');
  store.fields.forget();
  // Every field known but the rare one, as after a first pass: most pages add none.
  await store.fields.note('tasks', [task('t1', 0), task('t1', 1)], AT);
  const writer = new MirrorWriter(store, new FakeClock());
  const tally = newTally();
  await writer.beginBackfill({ id: 'p1', name: 'P', active: true, readOnlyReason: null }, tally);
  const insert = db.prepare(
    'INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, ?, ?, ?, ?)',
  );
  const onPage = new Map(c.pages.flatMap((page) => page.rows).map((row) => [row.id, row.variant]));
  for (const id of IDS) {
    const variant = onPage.get(id) ?? 0;
    const held = c.held[id];
    if (held === 'absent') continue;
    const copy =
      held === 'same'
        ? task(id, variant)
        : held === 'other'
          ? task(id, (variant + 1) % 3)
          : task(id, variant, 'p2');
    await insert.run(id, copy.projectId, copy.name, JSON.stringify(copy), AT);
  }
  if (c.seen.length > 0) await store.seenTasks.markAll('p1', c.seen);
  const guard = writer.guard('p1');
  // A write during the pass guards its tasks between two pairs of pages, as both engines write.
  const guardFrom = c.guardedAt * PAGES_PER_STATEMENT;
  const guardNow = () => {
    for (const id of c.guarded) guard.tasks.add(id);
    atGuard();
  };
  const pages = c.pages.map((page, index) => ({
    rows: taskRows(page.rows.map(({ id, variant }) => task(id, variant))),
    page: {
      pageSize: PAGE_SIZE,
      page: index + 1,
      etag: `"e${index + 1}"`,
      totalCount: page.totalCount,
      fresh: true,
    },
  }));
  let problem;
  for (let i = 0; i < pages.length && problem === undefined; i += perWrite) {
    if (i === guardFrom) guardNow();
    problem = await writer.backfillPages('p1', pages.slice(i, i + perWrite), tally);
  }
  writer.release('p1', guard);
  const read = (sql: string) => db.prepare(sql).all();
  // SQLite notes a page of tasks all new as a page: its ids are marked from its kept copy.
  await store.seenTasks.settle('p1');
  return {
    problem,
    rows: tally.rows,
    // PostgreSQL keeps `data` as jsonb, spelled its own way: compared parsed.
    tasks: (await read('SELECT id, project_id, name, data FROM tasks ORDER BY id')).map((row) => {
      const { data, ...columns } = row as { data: string };
      return { ...columns, data: JSON.parse(data) as unknown };
    }),
    assignees: await read('SELECT task_id, member_id FROM task_assignees ORDER BY 1, 2'),
    // Read back as the store reads them: SQLite keeps a page of tasks all new by reference.
    kept: await Promise.all(
      (await store.taskPages.heads('p1', PAGE_SIZE)).map(async ({ page }) => {
        const kept = await store.taskPages.get('p1', PAGE_SIZE, page);
        return { page, etag: kept?.etag, row_count: kept?.rowCount, rows: kept?.rows };
      }),
    ),
    state: await read(`SELECT pages_read, total_count FROM sync_state WHERE project_id = 'p1'`),
    seen: await read(`SELECT id FROM seen_tasks WHERE project_id = 'p1' ORDER BY id`),
    fields: await read(
      `SELECT record_kind, field, value_type FROM data_fields ORDER BY record_kind, field, value_type`,
    ),
  };
}

const engines = bothEngines();

describe('backfill pages written together', () => {
  it('leave the mirror on PostgreSQL, two a statement, as on SQLite, page by page', async () => {
    const [sqliteDb, pgDb] = await engines();
    const stores = [new MirrorStore(sqliteDb), new MirrorStore(pgDb)] as const;
    expect(stores.map((store) => store.tasks.writesPagesAtOnce)).toEqual([false, true]);
    for (const db of [sqliteDb, pgDb]) {
      await db
        .prepare(`INSERT INTO projects (id, name, data, synced_at) VALUES ('p2', 'p2', '{}', ?)`)
        .run(AT);
    }
    // Which way PostgreSQL's writes went: two pages at once, and written (or not).
    const together = { written: 0, refused: 0 };
    const atOnce = stores[1].tasks;
    const writeAtOnce = atOnce.putPagesAtOnce.bind(atOnce);
    atOnce.putPagesAtOnce = async (input) => {
      const ok = await writeAtOnce(input);
      if (input.pages.length === PAGES_PER_STATEMENT) together[ok ? 'written' : 'refused'] += 1;
      return ok;
    };
    let repeated = 0;
    // Pages noted seen whole (SQLite only: PostgreSQL's cases must add none).
    let deferred = 0;
    for (const store of stores) {
      const defer = store.seenTasks.defer.bind(store.seenTasks);
      store.seenTasks.defer = async (...args) => {
        deferred += 1;
        await defer(...args);
      };
    }
    // Cases where SQLite noted pages whole, and those where a later page then found a problem.
    let noted = 0;
    let notedThenRepeated = 0;
    // Cases where a write guarded tasks after SQLite had noted pages whole.
    let guardedAfterNoted = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        deferred = 0;
        let notedBeforeGuard = 0;
        const onSqlite = await play(sqliteDb, stores[0], c, 1, () => (notedBeforeGuard = deferred));
        const whole = deferred;
        const onPostgres = await play(pgDb, stores[1], c, PAGES_PER_STATEMENT);
        expect(onPostgres).toEqual(onSqlite);
        expect(deferred).toBe(whole);
        if (onSqlite.problem !== undefined) repeated += 1;
        if (whole > 0) noted += 1;
        if (whole > 0 && onSqlite.problem !== undefined) notedThenRepeated += 1;
        if (notedBeforeGuard > 0 && c.guarded.length > 0) guardedAfterNoted += 1;
      }),
      { seed: 20261126, numRuns: 240 },
    );
    // The cases reached every way: pairs written, pairs refused, problems found.
    expect(together.written).toBeGreaterThan(10);
    expect(together.refused).toBeGreaterThan(10);
    expect(repeated).toBeGreaterThan(10);
    expect(noted).toBeGreaterThan(10);
    expect(notedThenRepeated).toBeGreaterThan(5);
    expect(guardedAfterNoted).toBeGreaterThan(5);
  });
});
