/**
 * Outbox items of a case, queued as a user's script queues them (a plain SQL `INSERT`, which the
 * contract supports: key, state and times are defaulted in SQL), and the check that each one
 * took effect on the service exactly once.
 */
import type { Db } from '../../../src/store/db.js';
import type { SimService } from '../../../src/sim/index.js';
import { pickOf } from './service-changes.js';
import type { OutboxIntent } from './steps.js';

/** An item queued by the case, with what identifies its effect on the service. */
export interface QueuedItem {
  id: number;
  op: OutboxIntent['op'];
  projectId: string;
  /** The unique name a create gives its record (how its effect is counted). */
  name?: string;
}

/** Runs one statement (`?` placeholders) on some connection to the mirror; its first value. */
export type RunSql = (sql: string, params: unknown[]) => Promise<unknown>;

/** `RunSql` over the harness's own connection. */
export function runOn(db: Db): RunSql {
  return (sql, params) =>
    db
      .prepare(sql)
      .pluck()
      .get(...params);
}

/**
 * Queues `intent` through `run` (the harness's connection, or one holding the lock); returns
 * the item, or undefined when it has no target.
 */
export async function queueItem(
  run: RunSql,
  service: SimService,
  intent: OutboxIntent,
  pinnedTaskOf: (projectId: string) => string | undefined,
  newName: (prefix: string) => string,
): Promise<QueuedItem | undefined> {
  const project = pickOf(service.listProjects(), intent.project);
  if (project === undefined) return undefined;
  const insert = async (targetId: string | null, body: unknown) =>
    Number(
      await run(
        'INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?) RETURNING id',
        [intent.op, project.id, targetId, JSON.stringify(body)],
      ),
    );
  if (intent.op === 'task.update') {
    const target = pinnedTaskOf(project.id);
    if (target === undefined) return undefined;
    const id = await insert(target, { progress: intent.value });
    return { id, op: intent.op, projectId: project.id };
  }
  const name = newName(intent.op === 'task.create' ? 'outbox-task' : 'outbox-resource');
  const body =
    intent.op === 'task.create'
      ? { name, startDate: '2026-11-23', endDate: '2026-11-30', status: 'NotStarted' }
      : { name };
  return { id: await insert(null, body), op: intent.op, projectId: project.id, name };
}

/**
 * What went wrong with the queued items: one not done (pending, sending or failed), or a create
 * whose record the service holds other than exactly once.
 */
export async function outboxProblems(
  db: Db,
  service: SimService,
  items: QueuedItem[],
): Promise<string[]> {
  const problems: string[] = [];
  const state = db.prepare<
    [number],
    { state: string; attempts: number; last_error: string | null }
  >('SELECT state, attempts, last_error FROM outbox WHERE id = ?');
  for (const item of items) {
    const row = await state.get(item.id);
    if (row === undefined) problems.push(`outbox item ${item.id} (${item.op}) is gone`);
    else if (row.state !== 'done') {
      const why = row.last_error === null ? '' : `: ${row.last_error}`;
      problems.push(
        `outbox item ${item.id} (${item.op}) is ${row.state} after ${row.attempts} attempts${why}`,
      );
    }
    if (item.name === undefined) continue;
    const copies = createdCopies(service, item);
    if (copies !== 1) {
      problems.push(
        `outbox item ${item.id} (${item.op} "${item.name}") took effect ${copies} times`,
      );
    }
  }
  return problems;
}

/** How many records on the service carry the item's unique name (in any project). */
function createdCopies(service: SimService, item: QueuedItem): number {
  let copies = 0;
  for (const project of service.listProjects()) {
    const records =
      item.op === 'task.create' ? service.listTasks(project.id) : service.listResources(project.id);
    copies += records.filter((record) => record.name === item.name).length;
  }
  return copies;
}
