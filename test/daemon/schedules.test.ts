import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import { checkCron, DEFAULT_RECONCILE_CRON, Schedules } from '../../src/daemon/schedules.js';

describe('Schedules', () => {
  it('runs the retention then the reconcile, and survives a failing run', async () => {
    const calls: string[] = [];
    let fail = true;
    const schedules = new Schedules({
      reconcileCron: DEFAULT_RECONCILE_CRON,
      logger: pino({ level: 'silent' }),
      reconcile: async () => {
        calls.push('reconcile');
        if (fail) throw new Error('service down');
      },
      pruneHistory: () => {
        calls.push('prune');
      },
    });
    await schedules.reconcileTask.execute();
    fail = false;
    await schedules.reconcileTask.execute();
    expect(calls).toEqual(['prune', 'reconcile', 'prune', 'reconcile']);
    schedules.start();
    const next = schedules.nextReconcile();
    expect(next?.getUTCHours()).toBe(0);
    expect(next?.getUTCMinutes()).toBe(15);
    await schedules.stop();
  });

  it('names an invalid cron expression', () => {
    expect(() => checkCron('61 * * * *')).toThrow(UsageError);
    expect(() => checkCron('every day')).toThrow(/"every day" is not a valid cron expression/);
  });
});
