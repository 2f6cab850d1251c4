/** The log of a project that stays broken: one line per cause, then at most one an hour. */
import { describe, expect, it } from 'vitest';
import { BROKEN_PROJECT_LOG_MS, FailureLog } from '../../src/daemon/failure-log.js';
import { DISK_FULL } from '../../src/domain/index.js';
import { ManualClock } from '../../src/domain/manual-clock.js';
import { captureLogger } from '../fixtures/capture-log.js';

const MINUTE = 60_000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the log of a project that stays broken', () => {
  it('logs a cause once, then once an hour, a new cause at once, and its end once', async () => {
    const clock = new ManualClock();
    const { logger, lines } = captureLogger('info');
    const log = new FailureLog(clock, logger);
    const broken = { projectId: 'p_1', error: 'HTTP 500', errorCode: 'http_500' };
    // A failure a minute for three hours: 180 attempts.
    for (let i = 0; i < 180; i++) {
      log.failed(broken);
      await clock.advance(MINUTE);
    }
    log.failed({ projectId: 'p_1', error: 'HTTP 403', errorCode: 'forbidden' });
    log.passed('p_1');
    log.passed('p_1');
    await settle();
    expect(lines.map((l) => [l.msg, l.failures])).toEqual([
      ['pass failed', undefined],
      ['pass still failing', BROKEN_PROJECT_LOG_MS / MINUTE],
      ['pass still failing', BROKEN_PROJECT_LOG_MS / MINUTE],
      ['pass failed', undefined],
      ['pass succeeded again', 181],
    ]);
  });

  it('forgets a project the mirror no longer holds: shared again, its first failure is new', async () => {
    const clock = new ManualClock();
    const { logger, lines } = captureLogger('info');
    const log = new FailureLog(clock, logger);
    const broken = { projectId: 'p_1', error: 'HTTP 500', errorCode: 'http_500' };
    log.failed(broken);
    log.forget(['p_1']);
    // Its end is not announced: it was removed, not mended.
    log.passed('p_1');
    await clock.advance(2 * BROKEN_PROJECT_LOG_MS);
    log.failed(broken);
    log.failed(broken);
    await settle();
    expect(lines.map((l) => l.msg)).toEqual(['pass failed', 'pass failed']);
  });

  it('leaves a full disk to the disk watch: no line per project', async () => {
    const clock = new ManualClock();
    const { logger, lines } = captureLogger('info');
    const log = new FailureLog(clock, logger);
    for (let i = 0; i < 120; i++) {
      for (const projectId of ['p_1', 'p_2']) {
        log.failed({ projectId, error: 'database or disk is full', errorCode: DISK_FULL });
      }
      await clock.advance(MINUTE);
    }
    log.passed('p_1');
    log.passed('p_2');
    await settle();
    expect(lines).toEqual([]);
  });

  it('keeps projects apart: each its own first line', async () => {
    const clock = new ManualClock();
    const { logger, lines } = captureLogger('info');
    const log = new FailureLog(clock, logger);
    for (let i = 0; i < 5; i++) {
      log.failed({ projectId: 'p_1', error: 'boom', errorCode: 'internal' });
      log.failed({ projectId: 'p_2', error: 'boom', errorCode: 'internal' });
    }
    await settle();
    expect(lines.map((l) => [l.msg, l.projectId])).toEqual([
      ['pass failed', 'p_1'],
      ['pass failed', 'p_2'],
    ]);
  });
});
