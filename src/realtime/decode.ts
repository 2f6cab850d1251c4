/** Turns one realtime text message into a `Change`; never throws. */
import {
  EVENT_TYPES,
  type EventType,
  type JsonObject,
  type RealtimeEvent,
} from '../domain/index.js';
import { jsonOverLimits, MAX_BODY_VALUES, MAX_NESTING_DEPTH } from '../domain/json-bounds.js';
import type { Change } from './change.js';

/** How deep a message may nest: the message, then its `data` record at the validator's depth. */
const MESSAGE_LIMITS = { maxDepth: MAX_NESTING_DEPTH + 1, maxValues: MAX_BODY_VALUES };

/** The longest piece of a message's `type` quoted in a hint's reason. */
const MAX_QUOTED_TYPE_CHARS = 64;

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function hint(projectId: string | undefined, reason: string): Change {
  return projectId === undefined ? { kind: 'hint', reason } : { kind: 'hint', projectId, reason };
}

function unknownTypeReason(type: unknown): string {
  if (type === undefined) return 'message without a type';
  if (typeof type !== 'string')
    return `message type is ${type === null ? 'null' : `a ${typeof type}`}`;
  const shown =
    type.length > MAX_QUOTED_TYPE_CHARS ? `${type.slice(0, MAX_QUOTED_TYPE_CHARS)}…` : type;
  return `unknown message type ${JSON.stringify(shown)}`;
}

/**
 * Decodes a message per contract section 5: a known `type` with a non-empty string `projectId`
 * is an event (`id` kept when a string, `data` kept when an object); anything else is a hint
 * naming the message's `projectId` when it has one. A message nested past the bound, or holding
 * `secret` (the token, echoed back), is only a hint for every project: none of it is kept.
 */
export function decodeMessage(text: string, secret?: string): Change {
  if (secret !== undefined && secret !== '' && text.includes(secret)) {
    return hint(undefined, 'message holds the token; ignored');
  }
  const problem = jsonOverLimits(text, MESSAGE_LIMITS);
  if (problem !== undefined) return hint(undefined, `message ${problem}`);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return hint(undefined, 'message is not JSON');
  }
  if (!isJsonObject(message)) {
    return hint(
      undefined,
      `message is JSON ${Array.isArray(message) ? 'array' : 'but not an object'}`,
    );
  }
  const projectId = nonEmptyString(message['projectId']);
  const type = message['type'];
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) {
    return hint(projectId, unknownTypeReason(type));
  }
  if (projectId === undefined) return hint(undefined, `${type} message without a projectId`);
  const event: RealtimeEvent = { type: type as EventType, projectId };
  const id = nonEmptyString(message['id']);
  if (id !== undefined) event.id = id;
  if (isJsonObject(message['data'])) event.data = message['data'];
  return { kind: 'event', event };
}
