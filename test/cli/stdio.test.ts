/**
 * Pipes and formats as a script uses them: `-` for standard input and output, `@FILE`, one
 * `--json`, JSON with real arrays, booleans and numbers, NDJSON, and log lines kept off stdout.
 */
import { syncWithCli } from '../fixtures/synced.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_stdio_0123456789';

async function syncedMirror(): Promise<{ dir: string; db: string }> {
  const sim = await startTestSimulator({ projects: 2, tasks: [12, 6], tokens: [TOKEN] });
  const { dir, db, sync } = await syncWithCli(sim, TOKEN);
  expect(sync.code).toBe(0);
  return { dir, db };
}

describe('pipes and formats', () => {
  it('enqueue takes --body - from standard input and --body @FILE from a file', async () => {
    const { dir, db } = await syncedMirror();
    const edit = ['enqueue', 'task.update', '--db', db, '--project', 'p_1', '--target', 't_1'];
    const fromStdin = await runCli([...edit, '--body', '-', '--json'], {
      input: '{"progress": 40}\n',
    });
    expect(fromStdin.stderr).toBe('');
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ id: 1 });
    writeFileSync(join(dir, 'body.json'), '{"name": "from a file"}');
    const fromFile = await runCli([...edit, '--body', `@${join(dir, 'body.json')}`]);
    expect(fromFile.code).toBe(0);
    const missing = await runCli([...edit, '--body', `@${join(dir, 'nope.json')}`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^projmirror: cannot read --body file .*nope\.json: ENOENT\n$/);
    const notJson = await runCli([...edit, '--body', '-'], { input: 'progress=40' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toBe('projmirror: --body "progress=40" (from -) is not JSON\n');
    const sqlite = new Database(db, { readonly: true });
    const bodies = sqlite.prepare('SELECT body FROM outbox ORDER BY id').pluck().all();
    sqlite.close();
    expect(bodies.map((body) => JSON.parse(body as string) as unknown)).toEqual([
      { progress: 40 },
      { name: 'from a file' },
    ]);
  });

  it('export --out - writes one view to stdout, as NDJSON with typed values; without --view it is refused', async () => {
    const { db } = await syncedMirror();
    const run = await runCli([
      'export',
      '--db',
      db,
      '--format',
      'ndjson',
      '--view',
      'v_tasks',
      '--out',
      '-',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(18);
    const rows = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const row of rows) {
      expect(Array.isArray(row['assignee_ids'])).toBe(true);
      expect(Array.isArray(row['assignee_names'])).toBe(true);
      expect(typeof row['is_done']).toBe('boolean');
      expect(typeof row['is_overdue']).toBe('boolean');
      expect(typeof row['progress']).toBe('number');
    }
    const json = await runCli([
      'export',
      '--db',
      db,
      '--format',
      'json',
      '--view',
      'v_tasks',
      '--out',
      '-',
    ]);
    expect(JSON.parse(json.stdout)).toEqual(rows);

    const noView = await runCli(['export', '--db', db, '--format', 'csv', '--out', '-']);
    expect(noView.code).toBe(2);
    expect(noView.stderr).toBe(
      'projmirror: --out - writes one view to standard output: name it with --view\n',
    );
    const badView = await runCli([
      'export',
      '--db',
      db,
      '--format',
      'csv',
      '--view',
      'tasks',
      '--out',
      '-',
    ]);
    expect(badView.code).toBe(2);
    expect(badView.stderr).toMatch(
      /^projmirror: --view "tasks" is not a reporting view \(v_project_progress, /,
    );
  });

  it('report --json is --format json, with arrays, booleans and numbers; report --html - writes the page to stdout', async () => {
    const { db } = await syncedMirror();
    const json = await runCli(['report', '--db', db, '--json']);
    expect(json.code).toBe(0);
    const format = await runCli(['report', '--db', db, '--format', 'json']);
    expect(json.stdout).toBe(format.stdout);
    const projects = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(projects).toHaveLength(2);
    for (const project of projects) {
      expect(typeof project['active']).toBe('boolean');
      expect(typeof project['tasks']).toBe('number');
      for (const task of project['overdue_tasks'] as Record<string, unknown>[]) {
        expect(Array.isArray(task['assignee_ids'])).toBe(true);
        expect(typeof task['days_overdue']).toBe('number');
      }
    }
    expect(projects.some((project) => (project['overdue_tasks'] as unknown[]).length > 0)).toBe(
      true,
    );

    const html = await runCli(['report', '--db', db, '--html', '-']);
    expect(html.code).toBe(0);
    expect(html.stderr).toBe('');
    expect(html.stdout).toMatch(/^<!DOCTYPE html>/i);
    expect(html.stdout.trimEnd()).toMatch(/<\/html>$/);
  });
});
