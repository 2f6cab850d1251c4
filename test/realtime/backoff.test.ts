/** The listener's reconnect pauses: the shared backoff policy with the listener's own base and cap. */
import { onTestFinished, describe, expect, it } from 'vitest';
import {
  DEFAULT_RECONNECT_BASE_MS,
  DEFAULT_RECONNECT_MAX_MS,
  RealtimeListener,
} from '../../src/realtime/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { captureLogger } from '../fixtures/capture-log.js';
import { startWsServer, waitForPause } from './servers.js';

const TOKEN = 'glt_test_realtime_backoff_0c3d';

describe('reconnect backoff', () => {
  it('doubles from DEFAULT_RECONNECT_BASE_MS up to DEFAULT_RECONNECT_MAX_MS, jitter below', async () => {
    expect(DEFAULT_RECONNECT_BASE_MS).toBe(1_000);
    expect(DEFAULT_RECONNECT_MAX_MS).toBe(60_000);
    const server = await startWsServer();
    server.wss.on('connection', (socket) => socket.close(1011, 'going away'));
    const clock = new FakeClock();
    const listener = new RealtimeListener({
      url: server.url,
      token: TOKEN,
      clock,
      logger: captureLogger().logger,
      onChange: () => undefined,
      pingIntervalMs: 3_600_000,
      random: () => 0.999_999,
    });
    onTestFinished(() => listener.stop());
    listener.start();
    for (const pause of [999, 1_999, 3_999, 7_999, 15_999, 31_999, 59_999, 59_999]) {
      await waitForPause(clock, pause);
      await clock.advance(pause);
    }
    expect(server.sockets).toHaveLength(9);
  });
});
