/**
 * The realtime side of a case, built on what `src/sim` exports: a switch for how the next
 * service writes are announced (with data, without, or not at all; the simulator itself only
 * has `includeData`), a record of every event the service published and whether a client got
 * it, and the raw messages of bad events and hint floods.
 */
import type { RealtimeEvent, Task } from '../../../src/domain/index.js';
import type { Simulator } from '../../../src/sim/index.js';
import type { Announce, EventFlaw } from './steps.js';

/** One event the service published, as the daemon could have seen it. */
export interface PublishedEvent {
  type: string;
  projectId: string;
  /** The event carried the record (or is a deletion by id, which needs none). */
  selfContained: boolean;
  /** A realtime client was connected and the event was sent. */
  delivered: boolean;
}

interface Publisher {
  publish(event: RealtimeEvent): void;
}

/** Decides how the simulator's writes are announced, and records what was published. */
export class Announcer {
  readonly published: PublishedEvent[] = [];
  private mode: Announce = 'data';

  constructor(private readonly sim: Simulator) {
    // The simulator's services publish through the hub object (`sim.realtime`) at call time.
    const hub = sim.realtime as unknown as Publisher;
    const original = hub.publish.bind(hub);
    hub.publish = (event) => this.publish(event, original);
  }

  /** Runs `write` with its events announced as `mode` says. */
  during<T>(mode: Announce, write: () => T): T {
    const previous = this.mode;
    this.mode = mode;
    try {
      return write();
    } finally {
      this.mode = previous;
    }
  }

  /** True when some change reached no client at all (silent, or no client connected). */
  get someChangeUnheard(): boolean {
    return this.published.some((event) => !event.delivered);
  }

  /** True when some change reached no client with its record (so a reconcile may be needed). */
  get someChangeUnannounced(): boolean {
    return this.published.some((event) => !event.delivered || !event.selfContained);
  }

  private publish(event: RealtimeEvent, original: (event: RealtimeEvent) => void): void {
    const withData = this.mode === 'data' && event.data !== undefined;
    const deletion = event.type === 'task.deleted' && event.id !== undefined;
    this.published.push({
      type: event.type,
      projectId: event.projectId,
      selfContained: withData || deletion,
      delivered: this.mode !== 'silent' && this.sim.realtime.connectionCount > 0,
    });
    if (this.mode === 'silent') return;
    if (this.mode === 'data') return original(event);
    const { realtime } = this.sim;
    const includeData = realtime.includeData;
    realtime.includeData = false;
    try {
      original(event);
    } finally {
      realtime.includeData = includeData;
    }
  }
}

/** A realtime message about `task` whose record is wrong in the way `flaw` says. */
export function flawedEvent(projectId: string, task: Task, flaw: EventFlaw): string {
  const data: Record<string, unknown> = { ...task };
  if (flaw === 'idMismatch') data['id'] = `${task.id}_phantom`;
  if (flaw === 'nanProgress') data['progress'] = 'NaN';
  if (flaw === 'numericName') data['name'] = 5;
  return JSON.stringify({ type: 'task.updated', projectId, id: task.id, data });
}

/** A message the daemon can only take as a hint: an unknown type naming a project, or garbage. */
export function hintMessage(projectId: string | undefined): string {
  return projectId === undefined
    ? '{"type": "task.updated", not json'
    : JSON.stringify({ type: 'task.teleported', projectId });
}
