/** Shared set-up for the mirror's tests: an engine over a temp database and the fake service. */
import { storeOver } from '../fixtures/store.js';
import pino from 'pino';
import {
  checkList,
  checkProject,
  checkRecord,
  checkTask,
  taskOfProject,
  type ListType,
  type PutType,
  type RealtimeEvent,
  type RecordChange,
} from '../../src/domain/index.js';
import { checkEvent } from '../../src/realtime/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import type { MirrorHandle } from '../../src/store/handle.js';
import { Mirror } from '../../src/mirror/index.js';
import type { MirrorOptions } from '../../src/mirror/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { FakeRemote } from './fake-remote.js';

/** The tables that mirror the service (bookkeeping tables excluded). */
export const MIRRORED_TABLES = [
  'projects',
  'tasks',
  'task_assignees',
  'members',
  'resources',
  'dependencies',
  'task_history',
] as const;

/** A fresh database, fake service, fake clock and engine. */
export function setup(options: Partial<MirrorOptions> = {}) {
  const { db, file } = tempDatabase();
  return { db, file, ...engineOver(db, options) };
}

/**
 * A fake service, a fake clock and an engine over `db`, a mirror the test holds; `store` is the
 * mirror's units of work, as the engine uses them (a pass begun there guards the engine's writes).
 */
export function engineOver(db: MirrorHandle, options: Partial<MirrorOptions> = {}) {
  const remote = new FakeRemote();
  const clock = new FakeClock();
  const store = storeOver(db, clock).mirror;
  const mirror = new Mirror({
    store,
    remote,
    clock,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  return { remote, clock, mirror, store };
}

/** Every row of every mirrored table, in a stable order: equal snapshots mean nothing changed. */
export function snapshot(db: SqliteDb): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const table of MIRRORED_TABLES) {
    out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
  }
  return out;
}

/**
 * Counts every INSERT, UPDATE and DELETE on the mirrored tables from now on, through TEMP
 * triggers on this connection; returns a function reading the count.
 */
export function countWrites(db: SqliteDb): () => number {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS test_writes (tbl TEXT NOT NULL)');
  db.exec('DELETE FROM temp.test_writes');
  for (const table of MIRRORED_TABLES) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS test_${table}_${op} AFTER ${op} ON main.${table}
         BEGIN INSERT INTO temp.test_writes VALUES ('${table}'); END`,
      );
    }
  }
  const read = db.prepare('SELECT count(*) FROM temp.test_writes').pluck();
  return () => read.get() as number;
}

/** The ids of a project's tasks in the mirror, sorted. */
export function mirroredTaskIds(db: SqliteDb, projectId: string): string[] {
  return db
    .prepare('SELECT id FROM tasks WHERE project_id = ? ORDER BY id')
    .pluck()
    .all(projectId) as string[];
}

/** The ids of the fake's tasks of a project, sorted. */
export function remoteTaskIds(remote: FakeRemote, projectId: string): string[] {
  return (remote.tasks.get(projectId) ?? []).map((t) => t.id).sort();
}

/** Puts one record through the mirror's writer, checked first as a fetched record would come. */
export async function put(mirror: Mirror, projectId: string, type: PutType, record: unknown) {
  const context = { route: 'test', projectId };
  const change: RecordChange =
    type === 'project'
      ? { op: 'put', type, projectId, record: checkProject(record, context, 'record', projectId) }
      : type === 'task'
        ? {
            op: 'put',
            type,
            projectId,
            record: taskOfProject(checkTask(record, context, 'record'), projectId, context),
          }
        : { op: 'put', type, projectId, record: checkRecord(record, type, context, 'record') };
  return await mirror.writer.applyFetched(projectId, [change], 'test');
}

/** Writes a realtime event through the mirror's writer, checked first as the daemon does. */
export async function applyEvent(mirror: Pick<Mirror, 'writer'>, event: RealtimeEvent) {
  return await mirror.writer.applyEvent(checkEvent(event));
}

/** Removes one record through the mirror's writer. */
export function remove(mirror: Mirror, projectId: string, type: 'task' | ListType, id: string) {
  return mirror.writer.applyFetched(projectId, [{ op: 'remove', type, projectId, id }], 'test');
}

/** Replaces one list through the mirror's writer, checked first as a fetched list would come. */
export async function replace(mirror: Mirror, projectId: string, type: ListType, records: unknown) {
  const checked = checkList(records, type, { route: 'test', projectId });
  return await mirror.writer.applyFetched(
    projectId,
    [{ op: 'replace', type, projectId, records: checked }],
    'test',
  );
}
