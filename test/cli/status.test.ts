import { existsSync, statSync } from 'node:fs';
import { syncWithCli } from '../fixtures/synced.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatherStatus, quotaStatus, type StatusReport } from '../../src/cli/status/gather.js';
import { systemClock } from '../../src/domain/index.js';
import { inlineStore } from '../../src/store/thread/inline.js';
import { renderStatus } from '../../src/cli/status/render.js';
import { startTestDaemon } from '../daemon/fixtures.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_status';
const HOUR = 3_600_000;

describe('projmirror status', () => {
  it('shows each project, the learned quota and the outbox, as text and JSON', async () => {
    const sim = await startTestSimulator({
      projects: 2,
      tasks: [12, 3],
      readOnlyProjects: 1,
      tokens: [TOKEN],
    });
    const { db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const enqueued = await runCli([
      'enqueue',
      'task.delete',
      '--project',
      'p_1',
      '--target',
      't_1',
      '--body',
      '{}',
      '--db',
      db,
    ]);
    expect(enqueued.code).toBe(0);

    const json = await runCli(['status', '--json', '--db', db]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as StatusReport;
    expect(report.projects.map((p) => [p.id, p.tasks, p.backfill])).toEqual([
      ['p_1', 12, 'done'],
      ['p_2', 3, 'done'],
    ]);
    expect(report.projects[1]?.readOnlyReason).toBe('archived');
    expect(report.projects[0]?.stalenessSeconds).toBeGreaterThanOrEqual(0);
    expect(report.quota.limit).toBe(5000);
    expect(report.quota.remaining).toBe(5000 - sim.requestLog.count());
    expect(report.outbox.counts.pending).toBe(1);
    // The mirror's space: the file as it is, its free pages, its write-ahead log (issue 38).
    const walFile = `${db}-wal`;
    expect(report.space).toEqual({
      engine: 'sqlite',
      bytes: statSync(db).size,
      freePages: expect.any(Number) as number,
      freeBytes: (report.space?.freePages ?? -1) * 4_096,
      walBytes: existsSync(walFile) ? statSync(walFile).size : 0,
      autoVacuum: 'incremental',
    });

    const text = await runCli(['status', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/p_2 .*read-only: archived/);
    expect(text.stdout).toMatch(/quota: \d+ of 5000 left/);
    expect(text.stdout).toContain('outbox: 1 pending');
    expect(text.stdout).toMatch(
      /\nmirror: \d+\.\d MiB, \d+\.\d MiB in [\d,]+ free pages? \(given back daily\); write-ahead log \d+\.\d MiB\n/,
    );
  });

  it("shows when the daemon's start-up reconcile began and finished", async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 3, tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim, { realtime: false });
    const report = await gatherStatus(inlineStore(db, { clock: systemClock }), daemon.clock.now());
    expect(report.startup?.finishedAt).toBeDefined();
    expect(report.startup?.failed).toEqual([]);
    expect(Date.parse(report.startup!.finishedAt!)).toBeGreaterThanOrEqual(
      Date.parse(report.startup!.startedAt),
    );
    expect(renderStatus(report)).toMatch(/start-up reconcile: began \S+, finished \S+/);
  });

  it('shows an empty status, exit 0, when there is no mirror yet, without creating one', async () => {
    const file = join(tempDir(), 'none.sqlite');
    const run = await runCli(['status', '--json', '--db', file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/no mirror at .*none\.sqlite yet/);
    const report = JSON.parse(run.stdout) as StatusReport;
    expect(report.projects).toEqual([]);
    expect(report.outbox.counts.pending).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe('quota outlook', () => {
  const midnight = Date.UTC(2026, 10, 21);
  /** What the governor saved: `remaining` of 5,000 left as of `observedAt`. */
  const budget = (remaining: number, observedAt: number) => ({
    quotaLimit: 5000,
    quotaRemaining: remaining,
    observedAt,
    sentInWindow: 0,
    sentTotal: 0,
    takenAt: 0,
  });

  it("says when the quota runs out at today's rate", () => {
    // 3,000 used in 6 hours: 500 an hour, 2,000 left: out 4 hours later.
    const status = quotaStatus(budget(2000, midnight + 6 * HOUR), midnight + 6 * HOUR);
    expect(status.ratePerHour).toBe(500);
    expect(status.exhaustedAt).toBe(new Date(midnight + 10 * HOUR).toISOString());
  });

  it('lasts until the reset at a low rate, and forgets figures from an earlier day', () => {
    const low = quotaStatus(budget(4900, midnight + 10 * HOUR), midnight + 10 * HOUR);
    expect(low.exhaustedAt).toBeNull();
    const stale = quotaStatus(budget(10, midnight - HOUR), midnight + HOUR);
    expect(stale.remaining).toBe(5000);
  });
});
