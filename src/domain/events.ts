/** The realtime channel's messages (contract section 5). */
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
