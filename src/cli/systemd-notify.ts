/**
 * Readiness for systemd (`Type=notify`): `systemd-notify` is spawned to send READY=1,
 * STOPPING=1 and the watchdog's WATCHDOG=1, only when systemd listens (`$NOTIFY_SOCKET`). The unit sets `NotifyAccess=all`,
 * since the sender is that child; `systemd-notify` waits until systemd has read the message.
 */
import { execFile } from 'node:child_process';
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';

/** A notification that does not go through in this long is given up (with a warning). */
export const NOTIFY_TIMEOUT_MS = 10_000;

/** What `run` tells systemd. */
export type ServiceState = 'ready' | 'stopping' | 'watchdog';

const ARGUMENTS: Record<ServiceState, string[]> = {
  ready: ['--ready'],
  stopping: ['STOPPING=1'],
  watchdog: ['WATCHDOG=1'],
};

/**
 * Under a unit with `WatchdogSec=` (`$WATCHDOG_USEC` set for this process): sends WATCHDOG=1 every
 * half period while the event loop runs and `healthy()` holds, so that systemd restarts a daemon
 * whose loop is stuck. Returns the function that stops it.
 */
export function startWatchdog(
  healthy: () => boolean,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const usec = Number(env['WATCHDOG_USEC']);
  const pid = env['WATCHDOG_PID'];
  if (!env['NOTIFY_SOCKET'] || !(usec > 0) || (pid !== undefined && Number(pid) !== process.pid)) {
    return () => {};
  }
  const timer = setInterval(
    () => {
      if (healthy()) void notifySystemd('watchdog', logger, env);
    },
    Math.max(1, Math.floor(usec / 2_000)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Tells systemd `state` when `$NOTIFY_SOCKET` is set; resolves once sent (or given up). */
export function notifySystemd(
  state: ServiceState,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!env['NOTIFY_SOCKET']) return Promise.resolve();
  return new Promise((resolve) => {
    execFile('systemd-notify', ARGUMENTS[state], { env, timeout: NOTIFY_TIMEOUT_MS }, (error) => {
      if (error) logger.warn({ state, err: errorLine(error) }, 'systemd-notify failed');
      else logger.debug({ state }, 'systemd notified');
      resolve();
    });
  });
}
