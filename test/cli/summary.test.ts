import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncSummary } from '../../src/cli/summary.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_summary_0123456789';

describe('sync and push end with one summary', () => {
  it('a line, or with --json one object alone on stdout (logs on stderr)', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [30, 4], tokens: [TOKEN] });
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const db = join(dir, 'm.sqlite');
    const common = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', db];

    const sync = await runCli(['sync', ...common, '--log-format', 'json']);
    expect(sync.code).toBe(0);
    const lines = sync.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^sync: 2 projects consistent, 0 failed; 34 tasks; \d+ requests \(0 of 2 pages answered 304\); \d+ rows written; \d+\.\d s$/,
    );
    // Piped, stdout is the result alone: the log lines (JSON when asked) went to stderr.
    expect(lines).toHaveLength(1);
    expect(sync.stderr).toMatch(/"msg":"sync done"/);

    sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 400 });
    const json = await runCli(['sync', '--json', '--projects', 'p_1,p_2', ...common]);
    expect(json.code).toBe(1);
    const summary = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      ok: false,
      consistent: 1,
      failed: ['p_1'],
      tasks: 34,
      pagesNotModified: 1,
      rowsWritten: 0,
    });
    expect(summary['projects']).toHaveLength(2);
    // Plain lines by default: the failed project's alone.
    expect(json.stderr).toMatch(/^projmirror: project p_1: [^\n]*\n$/);

    const enqueue = await runCli([
      'enqueue',
      'task.update',
      '--db',
      db,
      '--project',
      'p_2',
      '--target',
      't_31',
      '--body',
      '{"progress": 50}',
    ]);
    expect(enqueue.code).toBe(0);
    const push = await runCli(['push', '--json', ...common]);
    expect(push.code).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({
      ok: true,
      done: 1,
      failed: 0,
      pending: 0,
      sent: 1,
    });

    const again = await runCli(['push', ...common]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n').at(-1)).toMatch(
      /^push: 0 done, 0 failed, 0 left pending; 0 requests; \d+\.\d s$/,
    );
  });

  it("leaves a pass's changedAt (the staleness histogram's instants) out of the summary", () => {
    const project = {
      projectId: 'p_1',
      ok: true,
      requests: 5,
      pagesRead: 1,
      pagesNotModified: 0,
      rowsWritten: 2,
      historyWritten: 2,
      tasks: 10,
      attempts: 1,
      backfill: false,
    };
    const report = {
      ok: true,
      requests: 6,
      removedProjects: [],
      projects: [{ ...project, changedAt: [1, 2] }],
    };
    expect(syncSummary(report, 10).projects).toEqual([project]);
  });
});
