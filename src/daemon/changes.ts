/**
 * Applies what the realtime channel says: events that carry their record are written straight
 * into the mirror (no request); everything else becomes the smallest refresh that covers it (get
 * task, one side list, or one project's pass), sent with purpose `refresh` so the plan's reserve
 * pays for it.
 */
import type { Logger } from 'pino';
import {
  errorLine,
  type Dependency,
  type Member,
  type Project,
  type RealtimeEvent,
  type RemoteApi,
  type Resource,
  type Task,
} from '../domain/index.js';
import type { ApplyOutcome, Mirror } from '../mirror/index.js';
import type { RefreshPart, RefreshRequest } from '../realtime/index.js';

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
}

/** Turns realtime events and refresh requests into mirror writes. */
export class ChangeApplier {
  constructor(private readonly options: ChangeApplierOptions) {}

  /** Applies an event that carries its record (or an authoritative delete); no request. */
  applyEvent(event: RealtimeEvent): void {
    const { mirror, logger } = this.options;
    try {
      const outcome = this.write(event, mirror);
      this.options.onApplied?.(event, outcome);
      if (outcome === 'unknown_project') {
        logger.info({ projectId: event.projectId }, 'event for a project not mirrored yet');
        this.options.onUnknownProject?.(event.projectId);
      }
    } catch (error) {
      // A record that does not validate is a hint that the project changed.
      logger.warn({ projectId: event.projectId, err: errorLine(error) }, 'event not applicable');
      throw error;
    }
  }

  /** Sends the smallest request(s) that bring the mirror up to date for `request`. */
  async refresh(request: RefreshRequest, signal: AbortSignal): Promise<void> {
    const { mirror, remote } = this.options;
    const call = { signal, purpose: 'refresh' as const };
    if (request.scope === 'all') return this.options.reconcile(signal);
    if (request.scope === 'task') {
      const task = await remote.getTask(request.taskId, call);
      if (task === null) mirror.removeTask(request.projectId, request.taskId);
      else if (mirror.applyTask(request.projectId, task) === 'unknown_project') {
        await this.options.syncProject(request.projectId, signal);
      }
      return;
    }
    if (needsPass(request.parts)) return this.options.syncProject(request.projectId, signal);
    for (const part of request.parts) {
      if (part === 'members') {
        mirror.replaceMembers(request.projectId, await remote.listMembers(request.projectId, call));
      } else if (part === 'resources') {
        mirror.replaceResources(
          request.projectId,
          await remote.listResources(request.projectId, call),
        );
      } else if (part === 'dependencies') {
        const list = await remote.listDependencies(request.projectId, call);
        mirror.replaceDependencies(request.projectId, list);
      }
    }
  }

  private write(event: RealtimeEvent, mirror: Mirror): ApplyOutcome {
    const { projectId, data } = event;
    switch (event.type) {
      case 'task.created':
      case 'task.updated':
        return mirror.applyTask(projectId, data as Task);
      case 'task.deleted':
        return mirror.removeTask(projectId, event.id ?? String(data?.['id']));
      case 'project.updated':
        return mirror.applyProject({ ...(data as Project), id: projectId });
      case 'member.changed':
        return mirror.applyRecord('members', projectId, data as Member);
      case 'resource.changed':
        return mirror.applyRecord('resources', projectId, data as Resource);
      case 'dependency.changed':
        return mirror.applyRecord('dependencies', projectId, data as Dependency);
    }
  }
}

/** Tasks or the project record can only be refreshed by a pass (pages are conditional). */
function needsPass(parts: readonly RefreshPart[]): boolean {
  return parts.includes('tasks') || parts.includes('project');
}
