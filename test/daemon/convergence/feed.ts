/**
 * Consumers of the change feed (docs/changes.md, "Applying the feed") watching a convergence
 * case: each takes a starting copy of the mirror's tables with the feed's newest `seq`, in one
 * snapshot, at a step of the case; reads the feed at random points, some rows at a time, while
 * the daemon writes; and applies what it read to its copy as the docs say. At the end, once the
 * mirror has converged, it reads the rest: its copy must equal the mirror, and the `seq`s it read
 * must be exactly those written after its start, each once, in increasing order.
 */
import fc from 'fast-check';
import { ChangesRepository, type ChangeRow } from '../../../src/store/changes.js';
import { dialectOf, type Db } from '../../../src/store/db.js';
import type { CaseObserver } from './driver.js';

/**
 * Where each consumer starts, and when each reads how many changes. A point is a step of the
 * case, counted modulo its steps plus one: 0 is right after the daemon's start, n after step n.
 */
export interface FeedPlan {
  /** The point at which each consumer takes its copy. */
  starts: number[];
  /** At point `after`, consumer `consumer` reads at most `limit` changes. */
  reads: Array<{ after: number; consumer: number; limit: number }>;
}

/** Consumers in a case. */
export const CONSUMERS = 2;

/** Plans for cases of up to `maxSteps` steps. */
export function feedPlan(maxSteps: number): fc.Arbitrary<FeedPlan> {
  const step = fc.nat({ max: maxSteps });
  return fc.record({
    starts: fc.array(step, { minLength: CONSUMERS, maxLength: CONSUMERS }),
    reads: fc.array(
      fc.record({
        after: step,
        consumer: fc.integer({ min: 0, max: CONSUMERS - 1 }),
        limit: fc.integer({ min: 1, max: 12 }),
      }),
      { maxLength: 2 * maxSteps },
    ),
  });
}

/** One row of a copy: its project, and its comparable data. */
interface Held {
  projectId: string;
  data: string;
}

/** The kinds of row a consumer copies, by the feed's entity names. */
type Entity = 'project' | 'task' | 'member' | 'resource' | 'dependency' | 'assignment';

/** A copy of the mirror's rows: entity, then key (the feed's entity id), then row. */
type Copy = Map<Entity, Map<string, Held>>;

const ENTITIES: Entity[] = ['project', 'task', 'member', 'resource', 'dependency', 'assignment'];

/** The mirror's rows of `projectId` (every project when undefined), by entity and key. */
async function readTables(db: Db, projectId?: string): Promise<Copy> {
  const only = (column: string) => (projectId === undefined ? '' : ` WHERE ${column} = ?`);
  const params = projectId === undefined ? [] : [projectId];
  const all = async (sql: string) =>
    (await db.prepare(sql).all(...params)) as Array<{ k: string; p: string; d: string | null }>;
  const copy: Copy = new Map(ENTITIES.map((entity) => [entity, new Map()]));
  const put = (entity: Entity, rows: Array<{ k: string; p: string; d: string | null }>) => {
    for (const row of rows) {
      copy.get(entity)!.set(keyOf(entity, row.p, row.k), { projectId: row.p, data: canon(row.d) });
    }
  };
  put('project', await all(`SELECT id AS k, id AS p, data AS d FROM projects${only('id')}`));
  put(
    'task',
    await all(`SELECT id AS k, project_id AS p, data AS d FROM tasks${only('project_id')}`),
  );
  for (const [entity, table] of [
    ['member', 'members'],
    ['resource', 'resources'],
    ['dependency', 'dependencies'],
  ] as const) {
    put(
      entity,
      await all(`SELECT id AS k, project_id AS p, data AS d FROM ${table}${only('project_id')}`),
    );
  }
  // An assignment's data in the feed: {"task_id", "member_id"}.
  put(
    'assignment',
    (
      await all(
        `SELECT a.task_id || ':' || a.member_id AS k, t.project_id AS p, a.task_id AS d
         FROM task_assignees a JOIN tasks t ON t.id = a.task_id${only('t.project_id')}`,
      )
    ).map((row) => ({
      ...row,
      d: JSON.stringify({ task_id: row.d, member_id: row.k.slice(String(row.d).length + 1) }),
    })),
  );
  return copy;
}

/** A member's, resource's or dependency's key in a copy: ids are unique within a project only. */
function keyOf(entity: Entity, projectId: string, entityId: string): string {
  return entity === 'member' || entity === 'resource' || entity === 'dependency'
    ? `${projectId}/${entityId}`
    : entityId;
}

/** `data` with its keys sorted, as text: the same JSON whichever engine spelt it. */
function canon(text: string | null): string {
  if (text === null) return 'null';
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sorted(inner)]),
    );
  };
  return JSON.stringify(sorted(JSON.parse(text)));
}

/** Runs `work` in one snapshot of `db` (PostgreSQL: repeatable read, so every read sees one state). */
async function inSnapshot<T>(db: Db, work: () => Promise<T>): Promise<T> {
  return await db.transaction(async () => {
    if (dialectOf(db) === 'postgres') {
      await db.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    }
    return await work();
  });
}

/** One consumer: its copy, its cursor, the `seq`s it read and what went wrong. */
export class Consumer {
  readonly seen: number[] = [];
  readonly problems: string[] = [];

  private constructor(
    readonly name: string,
    private copy: Copy,
    readonly startedAt: number,
    private cursor: number,
  ) {}

  /** A copy of the mirror and the newest `seq`, in one snapshot. */
  static async start(db: Db, name: string): Promise<Consumer> {
    return await inSnapshot(db, async () => {
      const newest = (await db.prepare('SELECT max(seq) FROM changes').pluck().get()) as
        number | null;
      const cursor = Math.max(0, Number(newest ?? 0));
      return new Consumer(name, await readTables(db), cursor, cursor);
    });
  }

  /** Reads and applies at most `limit` changes after the cursor. */
  async read(db: Db, limit: number): Promise<number> {
    const rows = await new ChangesRepository(db).after(this.cursor, limit);
    for (const row of rows) await this.apply(db, row);
    return rows.length;
  }

  private async apply(db: Db, row: ChangeRow): Promise<void> {
    if (row.seq <= this.cursor) {
      this.problems.push(`${this.name} read seq ${row.seq} at or below its cursor ${this.cursor}`);
    }
    this.cursor = row.seq;
    this.seen.push(row.seq);
    const entity = row.entity as Entity;
    const rows = this.copy.get(entity);
    if (rows === undefined) {
      this.problems.push(`${this.name} read an unknown entity: ${JSON.stringify(row)}`);
      return;
    }
    const key = keyOf(entity, row.projectId, row.entityId);
    if (entity === 'project' && (row.op === 'delete' || row.op === 'reload')) {
      this.dropProject(row.projectId);
      if (row.op === 'reload') this.merge(await readTables(db, row.projectId));
    } else if (row.op === 'delete') {
      rows.delete(key);
      if (entity === 'task') this.dropAssignments(new Set([row.entityId]));
    } else if (row.op === 'insert' || row.op === 'update') {
      rows.set(key, { projectId: row.projectId, data: canon(row.data) });
    } else {
      this.problems.push(`${this.name} read an unknown op: ${JSON.stringify(row)}`);
    }
  }

  /** Removes a project with every row of it, a task's assignments with the task. */
  private dropProject(projectId: string): void {
    const tasks = new Set<string>();
    for (const entity of ENTITIES) {
      for (const [key, held] of this.copy.get(entity)!) {
        if (held.projectId !== projectId) continue;
        if (entity === 'task') tasks.add(key);
        this.copy.get(entity)!.delete(key);
      }
    }
    this.dropAssignments(tasks);
  }

  private dropAssignments(tasks: ReadonlySet<string>): void {
    const assignments = this.copy.get('assignment')!;
    for (const key of assignments.keys()) {
      if (tasks.has(key.slice(0, key.lastIndexOf(':')))) assignments.delete(key);
    }
  }

  private merge(rows: Copy): void {
    for (const [entity, held] of rows) {
      for (const [key, row] of held) this.copy.get(entity)!.set(key, row);
    }
  }

  /** Reads the rest, then compares its copy with the mirror and its `seq`s with the feed's. */
  async finish(db: Db): Promise<string[]> {
    await inSnapshot(db, async () => {
      while ((await this.read(db, 50)) > 0);
      const mirror = await readTables(db);
      for (const entity of ENTITIES) {
        const mine = this.copy.get(entity)!;
        const theirs = mirror.get(entity)!;
        for (const key of new Set([...mine.keys(), ...theirs.keys()])) {
          const a = mine.get(key);
          const b = theirs.get(key);
          if (a?.data !== b?.data || a?.projectId !== b?.projectId) {
            this.problems.push(
              `${this.name}'s copy differs at ${entity} ${key}: ${JSON.stringify(a)} vs the mirror's ${JSON.stringify(b)}`,
            );
          }
        }
      }
      const written = (
        (await db
          .prepare('SELECT seq FROM changes WHERE seq > ? ORDER BY seq')
          .pluck()
          .all(this.startedAt)) as number[]
      ).map(Number);
      if (JSON.stringify(written) !== JSON.stringify(this.seen)) {
        this.problems.push(
          `${this.name} read seqs ${JSON.stringify(this.seen)}, the feed holds ${JSON.stringify(written)} after ${this.startedAt}`,
        );
      }
    });
    return this.problems;
  }
}

/** The consumers of a case of `steps` steps, following `plan`. */
export function feedObserver(
  plan: FeedPlan,
  steps: number,
): CaseObserver & { reads(): { during: number; atEnd: number } } {
  const consumers: Array<Consumer | undefined> = plan.starts.map(() => undefined);
  const point = (at: number) => (at % (steps + 1)) - 1;
  let during = 0;
  let atEnd = 0;
  let quietReads = 0;
  return {
    reads: () => ({ during, atEnd }),
    afterStep: async (db, step) => {
      for (const [i, start] of plan.starts.entries()) {
        if (point(start) === step && consumers[i] === undefined) {
          consumers[i] = await Consumer.start(db, `consumer ${i}`);
        }
      }
      for (const read of plan.reads.filter((r) => point(r.after) === step)) {
        const consumer = consumers[read.consumer];
        if (consumer !== undefined) during += await consumer.read(db, read.limit);
      }
    },
    // While the daemon settles, the plan's reads again, one each time, in turn.
    whileQuiet: async (db) => {
      const read = plan.reads[quietReads++ % Math.max(1, plan.reads.length)];
      const consumer = read === undefined ? undefined : consumers[read.consumer];
      if (consumer !== undefined) during += await consumer.read(db, read!.limit);
    },
    finish: async (db) => {
      const problems: string[] = [];
      for (const [i, consumer] of consumers.entries()) {
        // A consumer whose step never came (the case had fewer) starts now, and reads nothing.
        const started = consumer ?? (await Consumer.start(db, `consumer ${i}`));
        const before = started.seen.length;
        problems.push(...(await started.finish(db)));
        atEnd += started.seen.length - before;
      }
      return problems;
    },
  };
}
