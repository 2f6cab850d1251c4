/**
 * Issue 35 part 3's property, on SQLite and PostgreSQL: random interleavings (fast-check, seeded,
 * shrinking) of service edits (updates, creations, deletions), single-page polls, events (a
 * record written through the one writer as the realtime path writes it, sometimes stale), side
 * list polls, full passes and restarts (a new engine over the same database). A single-page poll
 * never deletes a task from the mirror, never writes a task the service does not hold as it wrote
 * it, and after a final full pass the mirror's tasks equal the service's.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import type { Db } from '../../src/store/db.js';
import { bothEngines } from '../fixtures/both-engines.js';
import { FakeClock } from '../fixtures/clock.js';
import { storeOver } from '../fixtures/store.js';
import { FakeRemote } from './fake-remote.js';

const engines = bothEngines();
const PAGE_SIZE = 4;
const SEED = 20_261_128;
const RUNS = 16;

type Step =
  | { kind: 'update'; at: number }
  | { kind: 'create'; at: number }
  | { kind: 'delete'; at: number }
  | { kind: 'page'; page: number }
  | { kind: 'lists' }
  | { kind: 'event'; at: number; stale: boolean }
  | { kind: 'pass' }
  | { kind: 'restart' };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('update' as const), at: fc.nat(30) }), weight: 4 },
    fc.record({ kind: fc.constant('create' as const), at: fc.nat(30) }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(30) }),
    {
      arbitrary: fc.record({
        kind: fc.constant('page' as const),
        page: fc.integer({ min: 1, max: 5 }),
      }),
      weight: 4,
    },
    fc.record({ kind: fc.constant('lists' as const) }),
    fc.record({ kind: fc.constant('event' as const), at: fc.nat(30), stale: fc.boolean() }),
    fc.record({ kind: fc.constant('pass' as const) }),
    fc.record({ kind: fc.constant('restart' as const) }),
  ),
  { minLength: 1, maxLength: 25 },
);

/** The mirror's tasks of a project: id to JSON data, parsed (each engine spells JSON its way). */
async function mirrored(db: Db, projectId: string): Promise<Map<string, unknown>> {
  const rows = (await db
    .prepare('SELECT id, data FROM tasks WHERE project_id = ?')
    .all(projectId)) as { id: string; data: unknown }[];
  return new Map(
    rows.map((row) => [row.id, typeof row.data === 'string' ? JSON.parse(row.data) : row.data]),
  );
}

let cases = 0;
/** How often each outcome of a page poll came up, so that the cases are seen to reach each. */
const outcomes = new Map<string, number>();

/** Plays `plan` on `db` against a fresh fake service; checks the property as it goes. */
async function play(db: Db, plan: Step[]): Promise<void> {
  cases += 1;
  const projectId = `c${cases}`;
  const remote = new FakeRemote();
  const clock = new FakeClock();
  const engine = () =>
    new Mirror({
      store: storeOver(db, clock).mirror,
      remote,
      clock,
      logger: pino({ level: 'silent' }),
      pageSize: PAGE_SIZE,
    });
  let mirror = engine();
  remote.seed(projectId, 10);
  expect((await mirror.syncProject(projectId)).ok).toBe(true);
  let created = 0;
  let version = 0;
  const tasks = () => remote.tasks.get(projectId)!;
  const stamp = () => new Date(Date.UTC(2026, 1, 1) + (version += 1) * 1000).toISOString();
  for (const step of plan) {
    await clock.advance(1000);
    const list = tasks();
    const target =
      list.length === 0
        ? undefined
        : list[step.kind === 'page' ? 0 : ('at' in step ? step.at : 0) % list.length];
    switch (step.kind) {
      case 'update':
        if (target) Object.assign(target, { name: `v${version}`, updatedAt: stamp() });
        break;
      case 'create':
        list.splice(('at' in step ? step.at : 0) % (list.length + 1), 0, {
          ...list[0]!,
          id: `${projectId}-n${(created += 1)}`,
          name: 'created',
          updatedAt: stamp(),
        } as Task);
        break;
      case 'delete':
        if (target) list.splice(list.indexOf(target), 1);
        break;
      case 'event': {
        if (!target) break;
        // A stale event carries an older copy than the service's (arrived late): never applied
        // over the newer one it meets.
        const record = step.stale
          ? { ...target, name: 'stale', updatedAt: '2026-01-01T00:00:00.000Z' }
          : { ...target };
        await mirror.writer.applyFetched(
          projectId,
          [{ op: 'put', type: 'task', projectId, record }],
          'event',
        );
        break;
      }
      case 'page': {
        const before = await mirrored(db, projectId);
        const result = await mirror.pollPage(projectId, step.page);
        const after = await mirrored(db, projectId);
        outcomes.set(result.outcome.kind, (outcomes.get(result.outcome.kind) ?? 0) + 1);
        // A partial read never deletes, and never creates.
        expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
        for (const [id, data] of after) {
          if (JSON.stringify(data) === JSON.stringify(before.get(id))) continue;
          // What it wrote is the service's copy as it stands.
          expect(data).toEqual(tasks().find((task) => task.id === id));
        }
        if (result.outcome.kind === 'escalate') {
          expect((await mirror.syncProject(projectId, { fresh: true })).ok).toBe(true);
        }
        break;
      }
      case 'lists':
        await mirror.pollLists(projectId);
        break;
      case 'pass':
        expect((await mirror.syncProject(projectId, { fresh: true })).ok).toBe(true);
        break;
      case 'restart':
        mirror = engine();
        break;
    }
  }
  expect((await mirror.syncProject(projectId, { fresh: true })).ok).toBe(true);
  const final = await mirrored(db, projectId);
  expect(new Map([...final].sort())).toEqual(
    new Map(
      tasks()
        .map((task) => [task.id, task] as const)
        .sort(),
    ),
  );
}

describe('single-page polls', () => {
  it('never delete, and a final full pass leaves the mirror equal to the service (both engines)', async () => {
    const [sqlite, postgres] = await engines();
    for (const db of [sqlite, postgres]) {
      await fc.assert(
        fc.asyncProperty(steps, (plan) => play(db, plan)),
        { seed: SEED, numRuns: RUNS, endOnFailure: false },
      );
    }
    for (const kind of ['unchanged', 'written', 'escalate']) {
      expect(outcomes.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
  }, 120_000);
});
