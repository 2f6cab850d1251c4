/** What the store-outage tests share: a /healthz probe, and a SIGTERM timed to its exit. */
import { expect } from 'vitest';
import type { RunningCli } from '../fixtures/cli.js';

/** One /healthz answer: its status, body, and how long it took. */
export interface Probe {
  status: number;
  ms: number;
  body: unknown;
}

/** One /healthz probe of the daemon serving on `port`. */
export async function probe(port: number): Promise<Probe> {
  const started = Date.now();
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json(), ms: Date.now() - started };
}

/**
 * With the database cut off again: a change on the service, 2 s for the daemon to take it up,
 * then SIGTERM; the daemon must exit 0 within 5 s, saying nothing on stderr.
 */
export async function expectQuickStop(daemon: RunningCli, change: () => void): Promise<void> {
  change();
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const signalled = Date.now();
  daemon.child.kill('SIGTERM');
  const ended = await daemon.ended;
  expect(ended.code).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(5_000);
  expect(ended.stderr).toBe('');
}
