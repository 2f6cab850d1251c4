/** Detects a dead connection: ping on an interval and give up when no pong comes back. */
import type { Clock } from '../domain/index.js';
import type { Connection } from './connection.js';

/** How long the connection idles between one pong check and the next ping. */
export const DEFAULT_PING_INTERVAL_MS = 30_000;
/** How long a ping may go unanswered before the connection counts as dead. */
export const DEFAULT_PONG_TIMEOUT_MS = 10_000;

/** The heartbeat's timing. */
export interface HeartbeatTiming {
  pingIntervalMs: number;
  pongTimeoutMs: number;
}

/**
 * Pings `connection` every `pingIntervalMs`; when no pong arrives within `pongTimeoutMs` it
 * abandons the connection and resolves true. Resolves false once `signal` aborts (the
 * connection closed or the listener stopped).
 */
export async function runHeartbeat(
  connection: Connection,
  clock: Clock,
  timing: HeartbeatTiming,
  signal: AbortSignal,
): Promise<boolean> {
  let answered = false;
  const removePongListener = connection.onPong(() => {
    answered = true;
  });
  try {
    for (;;) {
      await clock.sleep(timing.pingIntervalMs, signal);
      answered = false;
      if (!connection.ping()) return false;
      await clock.sleep(timing.pongTimeoutMs, signal);
      if (!answered) {
        connection.abandon(`no pong within ${timing.pongTimeoutMs} ms`);
        return true;
      }
    }
  } catch {
    return false;
  } finally {
    removePongListener();
  }
}
