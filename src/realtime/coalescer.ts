/** Merges realtime changes that need a read from the service into few refresh requests. */
import { errorLine, type Clock, type EventType, type RealtimeEvent } from '../domain/index.js';
import type { Change } from './change.js';
import type { RealtimeLogger } from './problem-log.js';

/** How long a change that needs a read waits for others to merge with. */
export const DEFAULT_COALESCE_MS = 1_000;

/** The parts of a project a refresh reads again. */
export const REFRESH_PARTS = ['project', 'tasks', 'dependencies', 'resources', 'members'] as const;
export type RefreshPart = (typeof REFRESH_PARTS)[number];

/**
 * A read the daemon should make: every project (`all`, after a reconnect or a hint naming no
 * project), some parts of one project, or one task when that is all that was asked.
 */
export type RefreshRequest =
  | { scope: 'all'; reason: string }
  | { scope: 'project'; projectId: string; parts: RefreshPart[]; hinted: boolean }
  | { scope: 'task'; projectId: string; taskId: string };

/** Everything the coalescer needs. */
export interface CoalescerOptions {
  clock: Clock;
  /** The merge window in milliseconds (`DEFAULT_COALESCE_MS`). */
  windowMs?: number;
  /** Events that can be applied as they are: a record in `data`, or a task deletion by id. */
  onEvent: (event: RealtimeEvent) => void;
  /** One merged read per project (or task, or everything) at the end of each window. */
  onRefresh: (request: RefreshRequest) => void;
  logger: RealtimeLogger;
}

const PART_OF_EVENT: Record<EventType, RefreshPart> = {
  'task.created': 'tasks',
  'task.updated': 'tasks',
  'task.deleted': 'tasks',
  'dependency.changed': 'dependencies',
  'resource.changed': 'resources',
  'member.changed': 'members',
  'project.updated': 'project',
};

/** What is pending for one project in the current window. */
interface ProjectAsk {
  parts: Set<RefreshPart>;
  taskIds: Set<string>;
  /** A hint (a message that said nothing usable) asked for it, not only data-less events. */
  hinted: boolean;
}

/** True when an event can be applied without reading from the service. */
export function isSelfContained(event: RealtimeEvent): boolean {
  return event.data !== undefined || (event.type === 'task.deleted' && event.id !== undefined);
}

/**
 * Passes self-contained events straight on, and collects everything else for `windowMs` (timed
 * by the clock from the first change of a window) into one `RefreshRequest` per project, so a
 * burst of data-less events costs one read instead of one per event.
 */
export class Coalescer {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly options: CoalescerOptions;
  private everything: string | undefined;
  private projects = new Map<string, ProjectAsk>();
  private timer: AbortController | undefined;
  private closed = false;

  constructor(options: CoalescerOptions) {
    this.options = options;
    this.clock = options.clock;
    this.windowMs = options.windowMs ?? DEFAULT_COALESCE_MS;
  }

  /** The number of refresh requests the current window would emit now. */
  get pendingCount(): number {
    return this.everything !== undefined ? 1 : this.projects.size;
  }

  /** Takes one change from the listener; never throws. */
  push(change: Change): void {
    if (this.closed) return;
    if (change.kind === 'event' && isSelfContained(change.event)) {
      this.call(() => this.options.onEvent(change.event));
      return;
    }
    if (change.kind === 'reconnected') this.askEverything('reconnected');
    else if (change.kind === 'hint') {
      if (change.projectId === undefined) this.askEverything(change.reason);
      else {
        const ask = this.ask(change.projectId);
        ask.parts = new Set(REFRESH_PARTS);
        ask.hinted = true;
      }
    } else this.askFor(change.event);
    this.arm();
  }

  /** Emits everything pending now and ends the window. */
  flush(): void {
    this.timer?.abort();
    this.timer = undefined;
    const requests = this.drain();
    for (const request of requests) this.call(() => this.options.onRefresh(request));
  }

  /** Drops whatever is pending and ignores later changes (the daemon is stopping). */
  close(): void {
    this.closed = true;
    this.timer?.abort();
    this.timer = undefined;
    this.everything = undefined;
    this.projects.clear();
  }

  private askEverything(reason: string): void {
    this.everything ??= reason;
  }

  private ask(projectId: string): ProjectAsk {
    let ask = this.projects.get(projectId);
    if (ask === undefined) {
      ask = { parts: new Set(), taskIds: new Set(), hinted: false };
      this.projects.set(projectId, ask);
    }
    return ask;
  }

  private askFor(event: RealtimeEvent): void {
    const ask = this.ask(event.projectId);
    const part = PART_OF_EVENT[event.type];
    if (part === 'tasks' && event.id !== undefined) ask.taskIds.add(event.id);
    else ask.parts.add(part);
  }

  private arm(): void {
    if (this.timer !== undefined) return;
    const timer = new AbortController();
    this.timer = timer;
    this.clock.sleep(this.windowMs, timer.signal).then(
      () => this.flush(),
      () => undefined,
    );
  }

  private drain(): RefreshRequest[] {
    const everything = this.everything;
    const projects = this.projects;
    this.everything = undefined;
    this.projects = new Map();
    if (everything !== undefined) return [{ scope: 'all', reason: everything }];
    return [...projects].map(([projectId, ask]) => refreshFor(projectId, ask));
  }

  private call(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.logger.error({ error: errorLine(error) }, 'realtime: coalescer handler failed');
    }
  }
}

function refreshFor(projectId: string, ask: ProjectAsk): RefreshRequest {
  const [onlyTask] = ask.taskIds;
  if (ask.parts.size === 0 && ask.taskIds.size === 1 && onlyTask !== undefined) {
    return { scope: 'task', projectId, taskId: onlyTask };
  }
  if (ask.taskIds.size > 0) ask.parts.add('tasks');
  const parts = REFRESH_PARTS.filter((p) => ask.parts.has(p));
  return { scope: 'project', projectId, parts, hinted: ask.hinted };
}
