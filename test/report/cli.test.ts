import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_VIEW_NAMES } from '../../src/report/index.js';
import type { Db } from '../../src/store/database.js';
import { runCli, type CliRun } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { asCsvRow, csvObjects } from './csv.js';
import { buildReportMirror } from './mirror.js';

function expectOk(run: CliRun): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}

function expectUsageError(run: CliRun, pattern: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

function view(db: Db, name: string, where = '', order = '1, 2, 3'): Record<string, unknown>[] {
  return db.prepare(`SELECT * FROM ${name} ${where} ORDER BY ${order}`).all() as Record<
    string,
    unknown
  >[];
}

describe('projmirror report and export (child process, read-only beside an open writer)', () => {
  it('report: table for people, CSV and JSON that parse and match the views', async () => {
    // The writer's connection stays open, as the daemon's would.
    const { db, file } = await buildReportMirror();

    const table = await runCli(['report', '--db', file]);
    expectOk(table);
    expect(table.stdout).toMatch(/^Project progress \(2 projects, \d{4}-\d{2}-\d{2} UTC\)\n/);
    expect(table.stdout).toMatch(/\np_alpha +Alpha Tower +5 +1 +1 +3 +60 +1 /);
    expect(table.stdout).toContain('Overdue tasks: 2 (not Done');

    const json = await runCli(['report', '--db', file, '--format', 'json']);
    expectOk(json);
    const projects = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(projects.map(({ overdue_tasks: _, ...progress }) => progress)).toEqual(
      view(db, 'v_project_progress', '', 'project_id'),
    );
    expect(projects.flatMap((p) => p['overdue_tasks'] as unknown[])).toHaveLength(2);

    const csv = await runCli(['report', '--db', file, '--format', 'csv', '--project', 'p_bravo']);
    expectOk(csv);
    expect(csvObjects(csv.stdout)).toEqual(
      view(db, 'v_project_progress', `WHERE project_id = 'p_bravo'`).map(asCsvRow),
    );
  });

  it('export: one file per view, CSV and JSON, each matching its view row for row', async () => {
    const { db, file } = await buildReportMirror();
    const order: Record<string, string> = {
      v_project_progress: 'project_id',
      v_tasks: 'project_id, task_id',
      v_overdue_tasks: 'project_id, end_date, task_id',
      v_member_workload: 'project_id, member_id',
      v_task_status_daily: 'project_id, day, status',
    };
    for (const format of ['csv', 'json'] as const) {
      const out = join(tempDir(), 'nested', format);
      const run = await runCli(['export', '--db', file, '--format', format, '--out', out]);
      expectOk(run);
      expect(readdirSync(out).sort()).toEqual(
        REPORT_VIEW_NAMES.map((v) => `${v}.${format}`).sort(),
      );
      expect(run.stdout.trimEnd().split('\n')).toHaveLength(REPORT_VIEW_NAMES.length);
      for (const name of REPORT_VIEW_NAMES) {
        const expected = view(db, name, '', order[name]);
        expect(expected.length, name).toBeGreaterThan(0);
        const text = readFileSync(join(out, `${name}.${format}`), 'utf8');
        const parsed = format === 'csv' ? csvObjects(text) : JSON.parse(text);
        expect(parsed, name).toEqual(format === 'csv' ? expected.map(asCsvRow) : expected);
        expect(run.stdout).toContain(`${name}.${format}\t${expected.length} rows`);
      }
    }
  });

  it('exits 2 with one line for a missing mirror, a file without views, or an unknown project', async () => {
    const dir = tempDir();
    const missing = join(dir, 'nothing.sqlite');
    expectUsageError(
      await runCli(['report', '--db', missing]),
      new RegExp(`--db ${missing} does not exist`),
    );
    const plain = join(dir, 'plain.sqlite');
    writeFileSync(plain, '');
    expectUsageError(
      await runCli(['export', '--db', plain, '--format', 'csv', '--out', dir]),
      /is not a projmirror mirror with reporting views/,
    );
    const { file } = await buildReportMirror();
    expectUsageError(
      await runCli(['report', '--db', file, '--project', 'p_nope']),
      /--project p_nope is not in the mirror/,
    );
  });
});
