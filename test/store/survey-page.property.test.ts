/**
 * The survey of a pass's kept pages answers the same on PostgreSQL (several pages a statement,
 * `SurveyPages`) as on SQLite (a page at a time, a snapshot of separate statements): the pages
 * changed, the first task seen twice, the tasks noted as seen and the unseen count, over random
 * kept pages (more than one statement takes), mirror contents, ids already seen and ids guarded
 * by writes during the pass.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { survey } from '../../src/store/writer/commit.js';
import { PassGuard } from '../../src/store/writer/guard.js';
import type { Db } from '../../src/store/db.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { SURVEY_PAGES_PER_STATEMENT } from '../../src/store/survey-pages.js';
import { bothEngines } from '../fixtures/both-engines.js';

const AT = '2026-11-25T10:00:00.000Z';
/** The ids pages draw from: many, so that a read of 13 pages often holds no repeat. */
const IDS = Array.from({ length: 400 }, (_, i) => `t${i + 1}`);
/** The ids the mirror may hold before the survey (the others it lacks). */
const HELD_IDS = IDS.slice(0, 60);
const PAGE_SIZE = 4;

/** What the mirror holds of a task: nothing, the page's copy, another copy, or another project's. */
type Held = 'absent' | 'same' | 'other' | 'elsewhere';

interface Case {
  pages: Array<Array<{ id: string; variant: number }>>;
  held: Record<string, Held>;
  /** The mirror holds every task of the pages as the page has it, but for `held`'s others. */
  holdsPages: boolean;
  /** The index of a kept page the mirror lacks, if any (beyond the pages: none). */
  missing: number | null;
  seen: string[];
  guarded: string[];
}

const task = (id: string, variant: number, projectId = 'p1') => ({
  id,
  projectId,
  name: `n${variant}`,
});

/** A kept page's rows: an id (mostly one the mirror cannot hold) and which copy of it. */
const keptPage = fc.array(
  fc.record({
    id: fc.oneof(
      { arbitrary: fc.constantFrom(...HELD_IDS), weight: 1 },
      { arbitrary: fc.constantFrom(...IDS), weight: 4 },
    ),
    variant: fc.nat(1),
  }),
  { minLength: 1, maxLength: PAGE_SIZE },
);

const cases: fc.Arbitrary<Case> = fc.record({
  // A few pages, or more than one statement surveys.
  pages: fc.oneof(
    fc.array(keptPage, { minLength: 1, maxLength: 4 }),
    fc.array(keptPage, {
      minLength: SURVEY_PAGES_PER_STATEMENT + 1,
      maxLength: SURVEY_PAGES_PER_STATEMENT + 3,
    }),
  ),
  held: fc.record(
    Object.fromEntries(
      HELD_IDS.map((id) => [
        id,
        // Mostly absent (a task a kept page has and the mirror lacks differs too).
        fc.oneof(
          { arbitrary: fc.constant<Held>('absent'), weight: 8 },
          { arbitrary: fc.constantFrom<Held>('same', 'other', 'elsewhere'), weight: 3 },
        ),
      ]),
    ) as Record<string, fc.Arbitrary<Held>>,
  ),
  holdsPages: fc.boolean(),
  missing: fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.nat(SURVEY_PAGES_PER_STATEMENT + 2), weight: 1 },
  ),
  seen: fc.subarray(HELD_IDS, { maxLength: 3 }),
  guarded: fc.subarray(HELD_IDS, { maxLength: 12 }),
});

/** Sets the mirror as `c` says, surveys it, and returns what the survey found and marked. */
async function play(db: Db, store: MirrorStore, c: Case) {
  for (const table of ['seen_tasks', 'task_pages', 'tasks']) await db.exec(`DELETE FROM ${table}`);
  const insert = db.prepare(
    'INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, ?, ?, ?, ?)',
  );
  // Each id's copy on the first page that has it is "the page's" one the mirror may hold.
  const onPage = new Map(c.pages.flat().map((row) => [row.id, row.variant]));
  for (const id of new Set([...HELD_IDS, ...onPage.keys()])) {
    const variant = onPage.get(id) ?? 0;
    const held = c.held[id] ?? 'absent';
    if (held === 'absent' && !(c.holdsPages && onPage.has(id))) continue;
    const copy =
      held === 'same' || held === 'absent'
        ? task(id, variant)
        : held === 'other'
          ? task(id, 1 - variant)
          : task(id, variant, 'p2');
    await insert.run(id, copy.projectId, copy.name, JSON.stringify(copy), AT);
  }
  for (const [index, rows] of c.pages.entries()) {
    if (index === c.missing) continue;
    const texts = rows.map(({ id, variant }) => JSON.stringify(task(id, variant)));
    await store.taskPages.put('p1', PAGE_SIZE, index + 1, `"e${index}"`, texts, AT);
  }
  if (c.seen.length > 0) await store.seenTasks.markAll('p1', c.seen);
  const guard = new PassGuard();
  for (const id of c.guarded) guard.tasks.add(id);
  const found = await survey(store, {
    projectId: 'p1',
    project: { id: 'p1', name: 'P' } as never,
    projectEtag: undefined,
    backfill: false,
    pageSize: PAGE_SIZE,
    lastPage: c.pages.length,
    totalCount: 0,
    lists: { members: [], resources: [], dependencies: [] },
    guard,
  }).catch((error: Error) => `${error.name}: ${error.message}`);
  const marked = await db
    .prepare(`SELECT id FROM seen_tasks WHERE project_id = 'p1' ORDER BY id`)
    .pluck()
    .all();
  return { found, marked };
}

const engines = bothEngines();

describe('the survey of kept pages', () => {
  it('answers on PostgreSQL, several pages a statement, as on SQLite, a page at a time', async () => {
    const [sqliteDb, pgDb] = await engines();
    const stores = [new MirrorStore(sqliteDb), new MirrorStore(pgDb)] as const;
    expect(stores.map((store) => store.surveyPages !== undefined)).toEqual([false, true]);
    for (const db of [sqliteDb, pgDb]) {
      for (const id of ['p1', 'p2']) {
        await db
          .prepare(`INSERT INTO projects (id, name, data, synced_at) VALUES (?, ?, '{}', ?)`)
          .run(id, id, AT);
      }
    }
    let differing = 0;
    let repeated = 0;
    let pastOneStatement = 0;
    let unchanged = 0;
    let missing = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const [onSqlite, onPostgres] = [
          await play(sqliteDb, stores[0], c),
          await play(pgDb, stores[1], c),
        ];
        expect(onPostgres).toEqual(onSqlite);
        if (typeof onSqlite.found === 'string') {
          if (onSqlite.found.startsWith('StoreError: kept page')) missing += 1;
          else repeated += 1;
        } else if (onSqlite.found.changedPages.length > 0) differing += 1;
        else unchanged += 1;
        // Every page surveyed, more than one statement takes.
        if (typeof onSqlite.found !== 'string' && c.pages.length > SURVEY_PAGES_PER_STATEMENT) {
          pastOneStatement += 1;
        }
      }),
      { seed: 20261125, numRuns: 200 },
    );
    // The cases reached every outcome.
    expect(repeated).toBeGreaterThan(10);
    expect(differing).toBeGreaterThan(10);
    expect(pastOneStatement).toBeGreaterThan(10);
    expect(unchanged).toBeGreaterThan(10);
    expect(missing).toBeGreaterThan(10);

    // A kept page the mirror no longer holds is one error, the same on both engines.
    for (const [index, db] of [sqliteDb, pgDb].entries()) {
      const store = stores[index]!;
      for (const table of ['seen_tasks', 'task_pages']) await db.exec(`DELETE FROM ${table}`);
      await store.taskPages.put('p1', PAGE_SIZE, 1, '"e1"', [JSON.stringify(task('t1', 0))], AT);
      const surveyed = survey(store, {
        projectId: 'p1',
        project: { id: 'p1', name: 'P' } as never,
        projectEtag: undefined,
        backfill: false,
        pageSize: PAGE_SIZE,
        lastPage: 2,
        totalCount: 0,
        lists: { members: [], resources: [], dependencies: [] },
        guard: new PassGuard(),
      });
      await expect(surveyed).rejects.toThrow(
        expect.objectContaining({ name: 'StoreError', message: 'kept page 2 of p1 is missing' }),
      );
    }
  });
});
