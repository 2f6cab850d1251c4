import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import { DEFAULT_RECONCILE_CRON } from '../../src/daemon/defaults.js';
import { checkCron, checkTimeZone, nextCronTime, Schedules } from '../../src/daemon/schedules.js';
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

  it('fires when day of month OR day of week matches, as crontab(5) reads both restricted', () => {
    const from = at('2026-11-22T10:02:30Z'); // a Sunday
    const fires: string[] = [];
    let after = from;
    for (let i = 0; i < 5; i += 1) {
      after = nextCronTime('0 0 13 * 5', after)!;
      fires.push(new Date(after).toISOString().slice(0, 10));
    }
    // Every Friday, and the 13th (Sunday 13 December) though it is no Friday.
    expect(fires).toEqual(['2026-11-27', '2026-12-04', '2026-12-11', '2026-12-13', '2026-12-18']);
    // Only one day field restricted: that one alone decides.
    expect(new Date(nextCronTime('0 0 13 * *', from)!).toISOString()).toBe(
      '2026-12-13T00:00:00.000Z',
    );
  });

  it('reads the expression in the given time zone, daylight saving included', () => {
    const winter = at('2026-11-22T10:00:00Z');
    expect(new Date(nextCronTime('15 0 * * *', winter, 'Europe/Berlin')!).toISOString()).toBe(
      '2026-11-22T23:15:00.000Z',
    );
    const summer = at('2027-07-01T10:00:00Z');
    expect(new Date(nextCronTime('15 0 * * *', summer, 'Europe/Berlin')!).toISOString()).toBe(
      '2027-07-01T22:15:00.000Z',
    );
    const schedules = new Schedules({
      reconcileCron: DEFAULT_RECONCILE_CRON,
      timezone: 'America/New_York',
      clock: new FakeClock(winter),
      logger: pino({ level: 'silent' }),
      reconcile: async () => {},
      pruneHistory: () => {},
    });
    expect(schedules.nextReconcile()?.toISOString()).toBe('2026-11-23T05:15:00.000Z');
  });

  it('names a time zone the platform does not know', () => {
    expect(() => checkTimeZone('Europe/Berlin')).not.toThrow();
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(
      new UsageError('--reconcile-timezone "Mars/Olympus" is not a time zone (say Europe/Berlin)'),
    );
  });

  it('names an invalid cron expression, one that never fires included', () => {
    expect(() => checkCron('0 0 31 2 *')).toThrow(/"0 0 31 2 \*" is not a valid cron expression/);
    expect(() => checkCron('61 * * * *')).toThrow(UsageError);
    expect(() => checkCron('every day')).toThrow(/"every day" is not a valid cron expression/);
  });
});
