/**
 * The outbox operations (contract section 3): which route each one calls, which id it targets,
 * which bodies are valid for it, and the request it becomes. Pure: no database, no network.
 */
import type { RouteName, WriteRequest } from './index.js';
import {
  checkDependency,
  checkDependencyList,
  checkIdList,
  checkNoBody,
  checkResource,
  checkTaskFields,
  type BodyCheck,
} from './op-bodies.js';

/** Every op an outbox row may name. */
export const OUTBOX_OPS = [
  'task.create',
  'task.update',
  'task.delete',
  'task.set_assignees',
  'task.reorder',
  'dependency.add',
  'dependency.remove',
  'dependency.set',
  'resource.create',
  'resource.update',
  'resource.delete',
] as const;

export type OutboxOp = (typeof OUTBOX_OPS)[number];

/** How one op becomes a request. */
interface OpSpec {
  route: RouteName;
  /** The route parameter filled from `target_id`; absent when the op addresses the project. */
  target?: 'taskId' | 'dependencyId' | 'resourceId';
  /** Creates carry `Idempotency-Key` so that a resend is replayed, not applied twice. */
  create: boolean;
  /** Checks the parsed body; returns the value to send (undefined: no body). */
  check: (body: unknown) => BodyCheck;
}

const OP_SPECS: Record<OutboxOp, OpSpec> = {
  'task.create': { route: 'createTask', create: true, check: (b) => checkTaskFields(b, 'create') },
  'task.update': {
    route: 'updateTask',
    target: 'taskId',
    create: false,
    check: (b) => checkTaskFields(b, 'update'),
  },
  'task.delete': { route: 'deleteTask', target: 'taskId', create: false, check: checkNoBody },
  'task.set_assignees': {
    route: 'setAssignees',
    target: 'taskId',
    create: false,
    check: (b) => checkIdList(b, 'assigneeIds'),
  },
  'task.reorder': { route: 'reorderTasks', create: false, check: (b) => checkIdList(b, 'taskIds') },
  'dependency.add': { route: 'addDependency', create: true, check: checkDependency },
  'dependency.remove': {
    route: 'removeDependency',
    target: 'dependencyId',
    create: false,
    check: checkNoBody,
  },
  'dependency.set': { route: 'setDependencies', create: false, check: checkDependencyList },
  'resource.create': {
    route: 'createResource',
    create: true,
    check: (b) => checkResource(b, 'create'),
  },
  'resource.update': {
    route: 'updateResource',
    target: 'resourceId',
    create: false,
    check: (b) => checkResource(b, 'update'),
  },
  'resource.delete': {
    route: 'deleteResource',
    target: 'resourceId',
    create: false,
    check: checkNoBody,
  },
};

/** True when `op` is one of `OUTBOX_OPS`. */
export function isOutboxOp(op: string): op is OutboxOp {
  return Object.hasOwn(OP_SPECS, op);
}

/** True for ops that name an existing record in `target_id`. */
export function opNeedsTarget(op: OutboxOp): boolean {
  return OP_SPECS[op].target !== undefined;
}

/** True for the ops that create a record and carry an `Idempotency-Key`. */
export function isCreateOp(op: OutboxOp): boolean {
  return OP_SPECS[op].create;
}

/** True for the ops whose success removes a record (task.delete, dependency.remove, ...). */
export function isDeleteOp(op: OutboxOp): boolean {
  return op === 'task.delete' || op === 'dependency.remove' || op === 'resource.delete';
}

/** What an outbox row needs to become a request. */
export interface ItemInput {
  op: string;
  projectId: string;
  targetId: string | null;
  /** The row's `body` column: JSON text. */
  body: string;
  idempotencyKey: string;
}

/** Why a row can never be sent; `code` starts its `last_error`. */
export interface Invalid {
  ok: false;
  code: 'invalid_op' | 'missing_target' | 'invalid_body';
  message: string;
}

/** A valid row: the request to send, with the exact body text fixed. */
export interface Valid {
  ok: true;
  request: WriteRequest;
}

/** Checks a row and builds its request; the body text is the canonical JSON of the body. */
export function buildRequest(item: ItemInput): Valid | Invalid {
  if (!isOutboxOp(item.op)) {
    return {
      ok: false,
      code: 'invalid_op',
      message: `unknown op ${JSON.stringify(item.op)}; expected one of ${OUTBOX_OPS.join(', ')}`,
    };
  }
  const spec = OP_SPECS[item.op];
  const params: Record<string, string> = {};
  if (spec.target === undefined) {
    params['projectId'] = item.projectId;
  } else if (item.targetId === null || item.targetId.trim() === '') {
    return { ok: false, code: 'missing_target', message: `${item.op} needs a target id` };
  } else {
    params[spec.target] = item.targetId;
  }
  const checked = checkBodyText(item.op, item.body, spec);
  if (!checked.ok) return { ok: false, code: 'invalid_body', message: checked.problem };
  const request: WriteRequest = { route: spec.route, params, projectId: item.projectId };
  if (checked.value !== undefined) request.body = JSON.stringify(checked.value);
  if (spec.create) request.idempotencyKey = item.idempotencyKey;
  return { ok: true, request };
}

function checkBodyText(op: OutboxOp, text: string, spec: OpSpec): BodyCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${op} body is not JSON` };
  }
  const checked = spec.check(parsed);
  return checked.ok ? checked : { ok: false, problem: `${op} body: ${checked.problem}` };
}
