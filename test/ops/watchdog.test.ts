/**
 * The systemd watchdog: WATCHDOG=1 reaches the notify socket (a real one, read by python3) every
 * half `WatchdogSec` while the daemon judges itself alive, and stops when it does not.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startWatchdog } from '../../src/cli/systemd-notify.js';
import { tempDir } from '../fixtures/db.js';
import { startNotifySocket } from './notify-socket.js';

const logger = pino({ level: 'silent' });

describe('the systemd watchdog', () => {
  it('pings every half period while alive, and falls silent when not', async () => {
    const socket = await startNotifySocket(tempDir());
    let alive = true;
    const env = { NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: '400000', PATH: process.env['PATH'] };
    const stop = startWatchdog(() => alive, logger, env);
    try {
      await socket.waitFor('WATCHDOG=1', 5_000);
      alive = false;
      await new Promise((resolve) => setTimeout(resolve, 600));
      const before = socket.messages().length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(socket.messages().length).toBe(before);
    } finally {
      stop();
    }
  });

  it('does nothing without WatchdogSec (no WATCHDOG_USEC), or for another pid', async () => {
    const socket = await startNotifySocket(tempDir());
    const base = { NOTIFY_SOCKET: socket.path, PATH: process.env['PATH'] };
    const stops = [
      startWatchdog(() => true, logger, base),
      startWatchdog(() => true, logger, { ...base, WATCHDOG_USEC: '200000', WATCHDOG_PID: '1' }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 800));
    stops.forEach((stop) => stop());
    expect(socket.messages()).toEqual([]);
  });
});
