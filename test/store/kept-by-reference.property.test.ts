/**
 * SQLite keeps a backfill's page of tasks all new by reference (its ids; the rows are the tasks'
 * texts), and the first write that changes, moves or deletes one of those tasks saves the text
 * the page holds. Over random sequences of pages kept by reference and by value, writes to the
 * tasks as events, outbox answers or a user's SQL make them, prunes and removals, every kept page
 * reads back exactly the rows it was kept with, and no saved text outlives the project's last page
 * kept by reference.
 */
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { encodeRows } from '../../src/store/task-pages.js';
import { openConnection } from '../fixtures/connection.js';
import { tempDatabase } from '../fixtures/db.js';

const AT = '2026-11-28T10:00:00.000Z';
const PAGE_SIZE = 3;
const IDS = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);

type Action =
  | { kind: 'reference'; page: number; ids: string[]; variant: number }
  | { kind: 'value'; page: number; ids: string[]; variant: number }
  | { kind: 'update'; id: string; variant: number }
  | { kind: 'delete'; id: string }
  | { kind: 'move'; id: string }
  | { kind: 'insert'; id: string; variant: number }
  | { kind: 'prune'; last: number }
  | { kind: 'remove' };

const page = fc.integer({ min: 1, max: 4 });
const ids = fc.uniqueArray(fc.constantFrom(...IDS), { minLength: 0, maxLength: PAGE_SIZE });
const id = fc.constantFrom(...IDS);
const variant = fc.nat(5);

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('reference' as const), page, ids, variant }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('value' as const), page, ids, variant }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('update' as const), id, variant }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), id }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('move' as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('insert' as const), id, variant }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('prune' as const), last: fc.nat(4) }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'remove' as const }), weight: 1 },
);

const text = (taskId: string, v: number) => JSON.stringify({ id: taskId, name: `n${v}`, v });

/** What the test expects: each kept page's rows, and the tasks table (id to its text). */
interface Model {
  pages: Map<number, string[]>;
  byReference: Set<number>;
}

async function play(db: Db, store: MirrorStore, actions: readonly Action[]) {
  const model: Model = { pages: new Map(), byReference: new Set() };
  const held = async (taskId: string) =>
    (await db
      .prepare<[string], string>('SELECT data FROM tasks WHERE id = ?')
      .pluck()
      .get(taskId)) as string | undefined;
  const listed = (taskId: string) =>
    [...model.pages.values()].some((rows) =>
      rows.some((t) => (JSON.parse(t) as { id: string }).id === taskId),
    );
  let readFromSaved = false;
  for (const a of actions) {
    await store.transaction(async () => {
      switch (a.kind) {
        case 'reference': {
          // As a backfill: tasks new to the mirror and to every kept page, inserted whole.
          const others = [...model.pages].filter(([p]) => p !== a.page).flatMap(([, r]) => r);
          const taken = new Set(others.map((t) => (JSON.parse(t) as { id: string }).id));
          for (const taskId of a.ids)
            if ((await held(taskId)) !== undefined || taken.has(taskId)) return;
          const texts = a.ids.map((taskId) => text(taskId, 40 + a.variant));
          for (const [i, taskId] of a.ids.entries()) {
            await db
              .prepare(
                `INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, 'p1', ?, ?, ?)`,
              )
              .run(taskId, 'n0', texts[i], AT);
          }
          await store.taskPages.putReference('p1', PAGE_SIZE, a.page, `"e${a.page}"`, a.ids, AT);
          model.pages.set(a.page, texts);
          model.byReference.add(a.page);
          break;
        }
        case 'value': {
          const texts = a.ids.map((taskId) => text(taskId, 10 + a.variant));
          await store.taskPages.put('p1', PAGE_SIZE, a.page, `"v${a.page}"`, texts, AT);
          model.pages.set(a.page, texts);
          model.byReference.delete(a.page);
          break;
        }
        case 'update':
          await db
            .prepare('UPDATE tasks SET data = ?, name = ? WHERE id = ?')
            .run(text(a.id, 20 + a.variant), `n${a.variant}`, a.id);
          break;
        case 'delete':
          await db.prepare('DELETE FROM tasks WHERE id = ?').run(a.id);
          break;
        case 'move':
          await db.prepare(`UPDATE tasks SET project_id = 'p2' WHERE id = ?`).run(a.id);
          break;
        case 'insert':
          // An event creates a task (again): never one a kept page lists, as a consistent
          // service would not.
          if ((await held(a.id)) !== undefined || listed(a.id)) return;
          await db
            .prepare(
              `INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, 'p1', 'x', ?, ?)`,
            )
            .run(a.id, text(a.id, 30 + a.variant), AT);
          break;
        case 'prune':
          await store.taskPages.prune('p1', PAGE_SIZE, a.last);
          for (const p of [...model.pages.keys()]) {
            if (p > a.last) {
              model.pages.delete(p);
              model.byReference.delete(p);
            }
          }
          break;
        case 'remove':
          await store.taskPages.remove('p1');
          model.pages.clear();
          model.byReference.clear();
          break;
      }
    });
    // Every kept page reads back as it was kept, whatever happened to its tasks since.
    const heads = await store.taskPages.heads('p1', PAGE_SIZE);
    expect(heads.map((h) => h.page)).toEqual([...model.pages.keys()].sort((x, y) => x - y));
    for (const [p, texts] of model.pages) {
      const kept = await store.taskPages.get('p1', PAGE_SIZE, p);
      expect(kept?.rows, `page ${p} after ${JSON.stringify(a)}`).toBe(encodeRows(texts));
      expect(kept?.rowCount).toBe(texts.length);
      // A survey of a page kept by reference compares only the texts saved: it finds a
      // difference exactly where comparing each of the page's rows with the mirror does.
      const look = await store.taskPages.look('p1', PAGE_SIZE, p);
      if (look !== undefined && 'ids' in look) {
        const pairs = look.ids.map((taskId, i) => [taskId, texts[i]!] as const);
        expect(await store.taskPages.referenceDiffers('p1', look.ids)).toBe(
          await store.tasks.anyDiffers('p1', pairs),
        );
      }
    }
    const count = (sql: string) => db.prepare<[], number>(sql).pluck().get() as Promise<number>;
    expect(await count('SELECT count(*) FROM task_page_refs')).toBe(model.byReference.size);
    const saved = await count('SELECT count(*) FROM task_page_originals');
    if (model.byReference.size === 0) expect(saved).toBe(0);
    else if (saved > 0) readFromSaved = true;
  }
  return { readFromSaved };
}

/** A new mirror's connection and store holding the projects `projectIds`, closed after the test. */
async function mirrorWith(projectIds: readonly string[]): Promise<{ db: Db; store: MirrorStore }> {
  const { db: raw, file } = tempDatabase();
  raw.close();
  const db = await openConnection({ db: file }, 'write');
  onTestFinished(() => db.close());
  for (const projectId of projectIds) {
    await db
      .prepare(`INSERT INTO projects (id, name, data, synced_at) VALUES (?, ?, '{}', ?)`)
      .run(projectId, projectId, AT);
  }
  return { db, store: new MirrorStore(db) };
}

describe('kept pages by reference (SQLite)', () => {
  it('read back the rows they were kept with, whatever writes their tasks met since', async () => {
    const { db, store } = await mirrorWith(['p1', 'p2']);
    let readFromSaved = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 30 }), async (actions) => {
        await store.taskPages.remove('p1');
        await db.exec('DELETE FROM tasks');
        if ((await play(db, store, actions)).readFromSaved) readFromSaved += 1;
      }),
      { seed: 20261128, numRuns: 300 },
    );
    // The cases reached pages whose tasks changed after they were kept.
    expect(readFromSaved).toBeGreaterThan(50);
  });

  it('is how a backfill keeps a page of tasks all new, and how a pass reads it back', async () => {
    const { db, store } = await mirrorWith(['p1']);
    const texts = ['a', 'b'].map((taskId) => text(taskId, 0));
    await store.transaction(async () => {
      for (const t of texts) {
        const { id: taskId } = JSON.parse(t) as { id: string };
        await db
          .prepare(
            `INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, 'p1', 'n0', ?, ?)`,
          )
          .run(taskId, t, AT);
      }
      await store.taskPages.putReference('p1', PAGE_SIZE, 1, '"e1"', ['a', 'b'], AT);
    });
    // The page holds ids, not a second copy of each text.
    const rows = await db.prepare<[], string>('SELECT rows FROM task_pages').pluck().get();
    expect(rows).toBe('["a","b"]');
    await db.prepare(`UPDATE tasks SET data = '{"id":"a","name":"changed"}' WHERE id = 'a'`).run();
    expect((await store.taskPages.get('p1', PAGE_SIZE, 1))?.rows).toBe(encodeRows(texts));
  });
});
