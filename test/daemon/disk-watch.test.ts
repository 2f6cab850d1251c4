/** The full disk's lines: one when it begins, a reminder at most hourly, not one per retry. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DiskWatch } from '../../src/daemon/disk-watch.js';
import { FakeClock } from '../fixtures/clock.js';

describe('DiskWatch', () => {
  it('warns when the disk fills, then at most once an hour while it stays full', async () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line).msg) },
    );
    const watch = new DiskWatch(clock, logger);
    const full = new Error('database or disk is full');
    Object.assign(full, { code: 'SQLITE_FULL' });
    watch.refused(full);
    // The passes retried each minute for 59 minutes: no line per retry.
    for (let minute = 1; minute < 60; minute += 1) {
      await clock.advance(60_000);
      watch.refused(full);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^the disk is full/);
    await clock.advance(60_000);
    watch.refused(full);
    expect(lines).toEqual([lines[0], 'the disk is still full']);
    expect(watch.full).toBe(true);
  });
});
