import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DEMO_TASKS } from '../../src/cli/commands/demo.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';

describe('projmirror demo', () => {
  it('syncs the sample projects, pushes edits, and shows the summary and queries', async () => {
    const file = join(tempDir(), 'demo.sqlite');
    const run = await runCli(['demo', '--db', file], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/1\. Synced 3 projects/);
    expect(run.stdout).toMatch(
      /2\. A second pass: \d+ requests, (\d+) of \1 pages answered 304, 0 rows written/,
    );
    expect(run.stdout).toMatch(/3 done, 1 failed/);
    expect(run.stdout).toContain('project_read_only');
    expect(run.stdout).toContain('-- Tasks by status in each project');
    const db = new Database(file, { readonly: true });
    try {
      const total = DEMO_TASKS.reduce((sum, n) => sum + n, 0);
      expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(total + 1);
      const created = db
        .prepare(`SELECT id FROM tasks WHERE name = 'Inspect bearings (from the demo)'`)
        .pluck()
        .all();
      expect(created).toHaveLength(1);
      expect(db.prepare(`SELECT count(*) FROM outbox WHERE state = 'done'`).pluck().get()).toBe(3);
    } finally {
      db.close();
    }
  });

  it('replaces an earlier demo mirror but refuses to delete any other database', async () => {
    const dir = tempDir();
    const other = join(dir, 'production.sqlite');
    const db = new Database(other);
    db.exec('CREATE TABLE precious (x)');
    db.close();
    const refused = await runCli(['demo', '--db', other], { env: { PROJMIRROR_DB: other } });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `projmirror: ${other} exists and is not a demo mirror; give the demo another --db`,
    );
    const kept = new Database(other, { readonly: true });
    expect(
      kept.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'precious'`).pluck().get(),
    ).toBe(1);
    kept.close();
    const demo = join(dir, 'demo.sqlite');
    expect((await runCli(['demo', '--db', demo], { env: { PROJMIRROR_DB: other } })).code).toBe(0);
    expect((await runCli(['demo', '--db', demo])).code).toBe(0);
  });
});
