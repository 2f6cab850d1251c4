/** A started listener on a fake clock, collecting what it reports; stopped when the test ends. */
import { onTestFinished } from 'vitest';
import { RealtimeListener, type Change } from '../../src/realtime/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { captureLogger } from '../fixtures/capture-log.js';

/** Starts a listener on `url` with `token` (jitter fixed at the middle of its range). */
export function startListener(url: URL, token: string, caFile: string | undefined) {
  const clock = new FakeClock();
  const log = captureLogger();
  const changes: Change[] = [];
  const listener = new RealtimeListener({
    url,
    token,
    caFile,
    clock,
    logger: log.logger,
    onChange: (change) => changes.push(change),
    random: () => 0.5,
  });
  onTestFinished(() => listener.stop());
  listener.start();
  return { listener, clock, log, changes };
}
