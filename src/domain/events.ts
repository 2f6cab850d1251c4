/** The realtime channel's messages (contract section 5). */
import type { RecordChange } from './changes.js';
import type { JsonObject } from './records.js';

export const EVENT_TYPES = [
  'task.created',
  'task.updated',
  'task.deleted',
  'dependency.changed',
  'resource.changed',
  'member.changed',
  'project.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** One message pushed by the service after a write. `data` is the record after the write. */
export interface RealtimeEvent {
  type: EventType;
  projectId: string;
  id?: string;
  data?: JsonObject;
}

/**
 * An event checked where it entered (`checkEvent` in src/realtime): what it says, as record
 * changes whose records checked and are the ones it names. The mirror's writer trusts it.
 */
export interface CheckedEvent {
  type: EventType;
  projectId: string;
  changes: readonly RecordChange[];
}
