/**
 * Applies what the realtime channel says: events that carry their record are written straight
 * into the mirror (no request); everything else becomes the smallest refresh that covers it (get
 * task, one side list, or one project's pass), sent with purpose `refresh` so the plan's reserve
 * pays for it.
 */
import type { Logger } from 'pino';
import {
  errorLine,
  isDiskFull,
  type CallOptions,
  type RealtimeEvent,
  type RecordChange,
  type RemoteApi,
} from '../domain/index.js';
import type { ApplyOutcome, Mirror } from '../mirror/index.js';
import { checkEvent, type RefreshPart, type RefreshRequest } from '../realtime/index.js';
import { EventBatch } from './event-batch.js';

/** The mirror and remote the applier writes through, and the daemon's passes it may ask for. */
export interface ChangeApplierOptions {
  mirror: Mirror;
  remote: RemoteApi;
  logger: Logger;
  /** A full pass over one project (so the daemon can note it for the poll schedule). */
  syncProject: (projectId: string, signal: AbortSignal) => Promise<void>;
  /** A reconcile of every project (after a reconnect, or a hint naming no project). */
  reconcile: (signal: AbortSignal) => Promise<void>;
  /** Told when an event names a project the mirror does not hold yet (newly shared). */
  onUnknownProject?: (projectId: string) => void;
  /** Told after every event applied, for metrics and tests. */
  onApplied?: (event: RealtimeEvent, outcome: ApplyOutcome) => void;
  /** Told after records a hint fetched are written (the task, or a side list), with the outcome. */
  onFetched?: (projectId: string, outcome: ApplyOutcome, records: readonly unknown[]) => void;
}

/** Turns realtime events and refresh requests into mirror writes. */
export class ChangeApplier {
  /** Events that arrive while others are written go together in one transaction. */
  private readonly batch: EventBatch;

  constructor(private readonly options: ChangeApplierOptions) {
    this.batch = new EventBatch((events) => options.mirror.writer.applyEvents(events));
  }

  /**
   * Applies an event that carries its record (or an authoritative delete); no request. The event
   * is checked here, once (`checkEvent`), before it goes to the store. Rejects when it does not
   * check (the caller turns it into a hint) or the store cannot take it.
   */
  async applyEvent(event: RealtimeEvent): Promise<void> {
    const { logger } = this.options;
    try {
      const outcome = await this.batch.apply(checkEvent(event));
      this.options.onApplied?.(event, outcome);
      if (outcome === 'unknown_project') {
        logger.info({ projectId: event.projectId }, 'event for a project not mirrored yet');
        this.options.onUnknownProject?.(event.projectId);
      }
    } catch (error) {
      // A full disk is told by the daemon's `DiskWatch`, not once per event.
      if (!isDiskFull(error)) {
        logger.warn({ projectId: event.projectId, err: errorLine(error) }, 'event not applicable');
      }
      throw error;
    }
  }

  /** Sends the smallest request(s) that bring the mirror up to date for `request`. */
  async refresh(request: RefreshRequest, signal: AbortSignal): Promise<void> {
    const { mirror, remote } = this.options;
    const call = { signal, purpose: 'refresh' as const };
    if (request.scope === 'all') return this.options.reconcile(signal);
    const { projectId } = request;
    if (request.scope === 'task') {
      const task = await remote.getTask(request.taskId, { ...call, projectId });
      const change: RecordChange =
        task === null
          ? { op: 'remove', type: 'task', projectId, id: request.taskId }
          : { op: 'put', type: 'task', projectId, record: task };
      const outcome = await mirror.writer.applyFetched(projectId, [change], 'getTask');
      this.options.onFetched?.(projectId, outcome, task === null ? [] : [task]);
      if (outcome === 'unknown_project') await this.options.syncProject(projectId, signal);
      return;
    }
    if (needsPass(request.parts)) return this.options.syncProject(projectId, signal);
    for (const part of request.parts) {
      const list = LISTS[part as keyof typeof LISTS];
      if (list === undefined) continue;
      const records = await list.read(remote, projectId, call);
      const change: RecordChange = { op: 'replace', type: list.type, projectId, records };
      const outcome = await mirror.writer.applyFetched(projectId, [change], list.route);
      this.options.onFetched?.(projectId, outcome, []);
    }
  }
}

/** How each list part is read again. */
const LISTS = {
  members: {
    type: 'member',
    route: 'listMembers',
    read: (remote: RemoteApi, id: string, call: CallOptions) => remote.listMembers(id, call),
  },
  resources: {
    type: 'resource',
    route: 'listResources',
    read: (remote: RemoteApi, id: string, call: CallOptions) => remote.listResources(id, call),
  },
  dependencies: {
    type: 'dependency',
    route: 'listDependencies',
    read: (remote: RemoteApi, id: string, call: CallOptions) => remote.listDependencies(id, call),
  },
} as const;

/** True when `request` is answered by passes (which record their own outcome), not by reads of records. */
export function answeredByPasses(request: RefreshRequest): boolean {
  return request.scope === 'all' || (request.scope === 'project' && needsPass(request.parts));
}

/** Tasks or the project record can only be refreshed by a pass (pages are conditional). */
function needsPass(parts: readonly RefreshPart[]): boolean {
  return parts.includes('tasks') || parts.includes('project');
}
