/**
 * Outbox items of a case, queued as a user's script queues them (a plain SQL `INSERT`, which the
 * contract supports: key, state and times are defaulted in SQL), and the check that each one
 * took effect on the service exactly once.
 */
import type { Db } from '../../../src/store/database.js';
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

/** Queues `intent`; returns the item, or undefined when it has no target (a trace line says so). */
export function queueItem(
  db: Db,
  service: SimService,
  intent: OutboxIntent,
  pinnedTaskOf: (projectId: string) => string | undefined,
  newName: (prefix: string) => string,
): QueuedItem | undefined {
  const project = pickOf(service.listProjects(), intent.project);
  if (project === undefined) return undefined;
  const insert = (targetId: string | null, body: unknown) =>
    db
      .prepare(
        'INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?) RETURNING id',
      )
      .pluck()
      .get(intent.op, project.id, targetId, JSON.stringify(body)) as number;
  if (intent.op === 'task.update') {
    const target = pinnedTaskOf(project.id);
    if (target === undefined) return undefined;
    const id = insert(target, { progress: intent.value });
    return { id, op: intent.op, projectId: project.id };
  }
  const name = newName(intent.op === 'task.create' ? 'outbox-task' : 'outbox-resource');
  const body =
    intent.op === 'task.create'
      ? { name, startDate: '2026-11-23', endDate: '2026-11-30', status: 'NotStarted' }
      : { name };
  return { id: insert(null, body), op: intent.op, projectId: project.id, name };
}

/**
 * What went wrong with the queued items: one not done (pending, sending or failed), or a create
 * whose record the service holds other than exactly once.
 */
export function outboxProblems(db: Db, service: SimService, items: QueuedItem[]): string[] {
  const problems: string[] = [];
  const state = db.prepare('SELECT state, attempts, last_error FROM outbox WHERE id = ?');
  for (const item of items) {
    const row = state.get(item.id) as
      { state: string; attempts: number; last_error: string | null } | undefined;
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
