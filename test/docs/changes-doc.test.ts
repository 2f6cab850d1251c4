/**
 * docs/changes.md as a user runs it: the commands of "Reading the feed" in a shell beside a
 * synced mirror, and the DuckDB example of "Loading it into DuckDB, incrementally" saved as the
 * page says and run between syncs that create, change and delete tasks; its table must equal
 * the mirror's tasks after each run, and a cursor older than the retention must load afresh.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ChangesRepository } from '../../src/store/changes.js';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { fencedBlocks, REPO } from './pages.js';

const TOKEN = 'glt_test_changes_doc_0123456789';

/** A directory with a synced mirror, `projmirror` on PATH (this checkout's CLI), node_modules. */
async function userDir() {
  const sim = await startTestSimulator({ projects: 2, tasks: [6, 4], tokens: [TOKEN] });
  const dir = tempDir();
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const args = CLI_NODE_ARGS.map((arg) => `'${arg}'`).join(' ');
  writeFileSync(join(bin, 'projmirror'), `#!/bin/sh\nexec '${process.execPath}' ${args} "$@"\n`);
  chmodSync(join(bin, 'projmirror'), 0o755);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    PROJMIRROR_BASE_URL: sim.baseUrl,
    PROJMIRROR_TOKEN_FILE: join(dir, 'token'),
    PROJMIRROR_LOG_LEVEL: 'warn',
  };
  const run = (script: string, signalAfterMs?: number) => shell(script, dir, env, signalAfterMs);
  expect((await run('projmirror sync')).code).toBe(0);
  return { sim, dir, run, mirror: join(dir, 'projmirror.sqlite') };
}

/** Runs `script` in bash in `dir`; with `signalAfterMs`, sends SIGTERM to it after that long. */
function shell(script: string, dir: string, env: NodeJS.ProcessEnv, signalAfterMs?: number) {
  const child = spawn('bash', ['-c', signalAfterMs === undefined ? script : `exec ${script}`], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (signalAfterMs !== undefined) setTimeout(() => child.kill('SIGTERM'), signalAfterMs);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The mirror's tasks and the DuckDB table's, in one shape. */
async function bothTables(dir: string, mirror: string) {
  const db = new Database(mirror, { readonly: true });
  const expected = db
    .prepare(
      `SELECT id, project_id, name, status, progress, start_date, end_date FROM tasks ORDER BY id`,
    )
    .all();
  db.close();
  const instance = await DuckDBInstance.create(join(dir, 'tasks.duckdb'));
  const duck = await instance.connect();
  const actual = (
    await duck.runAndReadAll(
      `SELECT id, project_id, name, status, progress, CAST(start_date AS VARCHAR) AS start_date,
         CAST(end_date AS VARCHAR) AS end_date FROM tasks ORDER BY id`,
    )
  ).getRowObjectsJson();
  duck.closeSync();
  instance.closeSync();
  return { expected, actual };
}

describe('docs/changes.md', () => {
  it('Reading the feed: each command runs as shown', async () => {
    const { run } = await userDir();
    const [block] = fencedBlocks('Reading the feed', 'sh');
    const commands = block!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '');
    expect(commands).toHaveLength(2);
    const first = await run(commands[0]!);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const lines = first.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('seq');
    // --follow runs until told to stop: SIGTERM, exit 0.
    const followed = await run(commands[1]!, 1_500);
    expect(followed).toMatchObject({ code: 0, stderr: '' });
  });

  it('Loading it into DuckDB, incrementally: the script keeps its table equal to the mirror', async () => {
    const { sim, dir, run, mirror } = await userDir();
    const [script] = fencedBlocks('Loading it into DuckDB, incrementally', 'js');
    const [commands] = fencedBlocks('Loading it into DuckDB, incrementally', 'sh');
    expect(script).toMatch(/^\/\/ load-into-duckdb\.mjs/);
    writeFileSync(join(dir, 'load-into-duckdb.mjs'), script!);
    const load = async () => {
      const result = await run(commands!.trim());
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      return result.stdout;
    };

    expect(await load()).toMatch(/^applied \d+ changes; cursor \d+\n$/);
    let tables = await bothTables(dir, mirror);
    expect(tables.actual).toEqual(tables.expected);
    expect(tables.actual).toHaveLength(10);

    const [p1, p2] = sim.service.listProjects();
    const [t1, t2] = sim.service.listTasks(p1!.id);
    sim.service.updateTask(t1!.id, { name: 'Changed', status: 'Done', progress: 100 });
    sim.service.deleteTask(t2!.id);
    sim.service.createTask(p2!.id, { name: 'Created', startDate: '2026-12-01' });
    expect((await run('projmirror sync')).code).toBe(0);
    // The update, the delete, its two dependencies the service dropped with it, the insert.
    expect(await load()).toMatch(/^applied 5 changes; /);
    tables = await bothTables(dir, mirror);
    expect(tables.actual).toEqual(tables.expected);

    // Nothing new: nothing applied.
    expect(await load()).toMatch(/^applied 0 changes; /);

    // Retention prunes past the cursor: the script loads afresh and goes on.
    sim.service.updateTask(t1!.id, { name: 'Changed again' });
    expect((await run('projmirror sync')).code).toBe(0);
    const writer = new Database(mirror);
    writer.prepare(`UPDATE changes SET committed_at = '2000-01-01T00:00:00.000Z'`).run();
    expect(await new ChangesRepository(writer).prune(Date.now(), 30)).toBeGreaterThan(0);
    writer.close();
    expect(await load()).toMatch(/^applied 0 changes; /);
    tables = await bothTables(dir, mirror);
    expect(tables.actual).toEqual(tables.expected);
    expect(tables.actual).toContainEqual(expect.objectContaining({ name: 'Changed again' }));
  });
});
