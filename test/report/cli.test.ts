import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_VIEW_NAMES, REPORT_VIEWS, UTF8_BOM } from '../../src/report/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { runCli, type CliRun } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { asCsvRow, csvObjects } from './csv.js';
import { buildReportMirror, zoneOffTheUtcDay } from './mirror.js';
import { asJsonRow } from './json.js';

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

function view(
  db: SqliteDb,
  name: string,
  where = '',
  order = '1, 2, 3',
): Record<string, unknown>[] {
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
      view(db, 'v_project_progress', '', 'project_id').map(asJsonRow),
    );
    expect(projects.flatMap((p) => p['overdue_tasks'] as unknown[])).toHaveLength(2);

    const csv = await runCli(['report', '--db', file, '--format', 'csv', '--project', 'p_bravo']);
    expectOk(csv);
    expect(csvObjects(csv.stdout)).toEqual(
      view(db, 'v_project_progress', `WHERE project_id = 'p_bravo'`).map(asCsvRow),
    );
  });

  it('report and export still run after a plain-SQL edit made outside projmirror', async () => {
    // A user's own UPDATE (sqlite3, a BI tool) fires the change feed's triggers, which open a
    // batch that only projmirror's own commits end: a read-only command must not try to.
    const { db, file } = await buildReportMirror();
    db.exec(
      `UPDATE tasks SET data = json_set(data, '$.name', 'renamed by hand')
       WHERE rowid = (SELECT min(rowid) FROM tasks)`,
    );
    expect(db.prepare('SELECT open FROM change_batch').pluck().get()).not.toBeNull();
    expectOk(await runCli(['report', '--db', file]));
    const dir = tempDir();
    expectOk(await runCli(['export', '--db', file, '--format', 'csv', '--out', dir]));
    expect(readdirSync(dir).length).toBe(REPORT_VIEW_NAMES.length);
  });

  it('export: one file per view, CSV and JSON, each matching its view row for row', async () => {
    const { db, file } = await buildReportMirror();
    const order: Record<string, string> = REPORT_VIEWS;
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
        expect(parsed, name).toEqual(
          format === 'csv' ? expected.map(asCsvRow) : expected.map(asJsonRow),
        );
        const rows = expected.length === 1 ? '1 row' : `${expected.length} rows`;
        expect(run.stdout).toContain(`${name}.${format}\t${rows}`);
      }
    }
  });

  it('report --limit, --bom and --timezone; export --bom', async () => {
    const { db, file } = await buildReportMirror();
    const limited = await runCli(['report', '--db', file, '--limit', '1']);
    expectOk(limited);
    expect(limited.stdout).toContain('Project progress (2 projects,');
    expect(limited.stdout).toContain('... and 1 more (--limit 1)');
    expect(limited.stdout.match(/^(Alpha|Bravo) /gm)).toHaveLength(1);

    const csv = await runCli(['report', '--db', file, '--format', 'csv', '--bom']);
    expectOk(csv);
    expect(csv.stdout.startsWith(`${UTF8_BOM}project_id,`)).toBe(true);
    const out = join(tempDir(), 'bom');
    expectOk(await runCli(['export', '--db', file, '--format', 'csv', '--out', out, '--bom']));
    expect(readFileSync(join(out, 'v_tasks.csv')).subarray(0, 3)).toEqual(
      Buffer.from([0xef, 0xbb, 0xbf]),
    );

    // In a zone a day ahead of UTC, "Pour deck" (ending today in UTC) is overdue; a day behind,
    // "Permits" (ending yesterday) is not yet. The mirror itself is left in UTC.
    const zone = zoneOffTheUtcDay();
    const ahead = zone === 'Pacific/Kiritimati';
    const zoned = await runCli(['report', '--db', file, '--format', 'json', '--timezone', zone]);
    expectOk(zoned);
    const overdue = (
      JSON.parse(zoned.stdout) as Array<{ overdue_tasks: Array<{ task_id: string }> }>
    )
      .flatMap((project) => project.overdue_tasks.map((task) => task.task_id))
      .sort();
    expect(overdue).toEqual(ahead ? ['t_a5', 't_b2', 't_b3'] : ['t_a5']);
    expect(db.prepare('SELECT timezone FROM v_today').pluck().get()).toBe('UTC');
    const table = await runCli(['report', '--db', file, '--timezone', zone]);
    expect(table.stdout).toMatch(new RegExp(`^Project progress \\(2 projects, [0-9-]+ ${zone}\\)`));
  });

  it('exits 2 with one line for a bad --limit or --timezone', async () => {
    const { file } = await buildReportMirror();
    expectUsageError(
      await runCli(['report', '--db', file, '--limit', '0']),
      /--limit 0 must be a whole number of rows, 1 or more/,
    );
    expectUsageError(
      await runCli([
        'export',
        '--db',
        file,
        '--format',
        'csv',
        '--out',
        tempDir(),
        '--timezone',
        'Mars/Olympus',
      ]),
      /--timezone "Mars\/Olympus" is not an IANA time zone/,
    );
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
