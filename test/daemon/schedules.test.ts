import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import {
  checkCron,
  DEFAULT_RECONCILE_CRON,
  nextCronTime,
  Schedules,
} from '../../src/daemon/schedules.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';

const at = (iso: string) => Date.parse(iso);

describe('Schedules', () => {
  it('fires on the injected clock: retention then reconcile, surviving a failing run', async () => {
    const clock = new FakeClock(at('2026-11-21T23:00:00Z'));
    const calls: string[] = [];
    let fail = true;
    const schedules = new Schedules({
      reconcileCron: DEFAULT_RECONCILE_CRON,
      clock,
      logger: pino({ level: 'silent' }),
      reconcile: async () => {
        calls.push(`reconcile ${new Date(clock.now()).toISOString()}`);
        if (fail) throw new Error('service down');
      },
      pruneHistory: () => {
        calls.push('prune');
      },
    });
    expect(schedules.nextReconcile()?.toISOString()).toBe('2026-11-22T00:15:00.000Z');
    schedules.start();
    await flushMicrotasks();
    await clock.advance(74 * 60_000);
    expect(calls).toEqual([]);
    await clock.advance(60_000);
    fail = false;
    await clock.advance(24 * 3_600_000);
    expect(calls).toEqual([
      'prune',
      'reconcile 2026-11-22T00:15:00.000Z',
      'prune',
      'reconcile 2026-11-23T00:15:00.000Z',
    ]);
    await schedules.stop();
  });

  it('computes the next match in UTC for minutes, weekdays and months', () => {
    const from = at('2026-11-22T10:02:30Z'); // a Sunday
    expect(new Date(nextCronTime('*/5 * * * *', from)!).toISOString()).toBe(
      '2026-11-22T10:05:00.000Z',
    );
    expect(new Date(nextCronTime('0 9 * * 1-5', from)!).toISOString()).toBe(
      '2026-11-23T09:00:00.000Z',
    );
    expect(new Date(nextCronTime('0 0 1 2 *', from)!).toISOString()).toBe(
      '2027-02-01T00:00:00.000Z',
    );
    expect(new Date(nextCronTime('0 0 29 2 *', from)!).toISOString()).toBe(
      '2028-02-29T00:00:00.000Z',
    );
  });

  it('names an invalid cron expression', () => {
    expect(() => checkCron('61 * * * *')).toThrow(UsageError);
    expect(() => checkCron('every day')).toThrow(/"every day" is not a valid cron expression/);
  });
});
