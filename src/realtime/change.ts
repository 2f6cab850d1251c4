/** What the realtime listener tells the daemon: decoded events, hints and reconnections. */
import type { RealtimeEvent } from '../domain/index.js';

/**
 * One notice from the realtime channel (contract section 5):
 * - `event`: a message of a known type naming its project; `event.data`, when present, is the
 *   record after the write.
 * - `hint`: a message that could not be parsed or is not known; the project it names may have
 *   changed, or every project when `projectId` is absent.
 * - `reconnected`: the connection opened again after an earlier attempt, so events may have been
 *   missed and the daemon should reconcile.
 */
export type Change =
  | { kind: 'event'; event: RealtimeEvent }
  | { kind: 'hint'; projectId?: string; reason: string }
  | { kind: 'reconnected' };

/** The state of the listener's connection, reported through `onStatus`. */
export type RealtimeStatus = 'connecting' | 'connected' | 'disconnected';
