/**
 * Probes with planted local files (issue 12, items 2, 3 and 7): another application's database,
 * a text file or a directory given as `--db`, a refused command on a new path, `/dev/zero` as the
 * token or CA file. Each exits 2 with one line naming the value, and changes or creates nothing.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/db.js';
import { cli } from '../outbox/in-process-cli.js';

const TOKEN = 'glt_test_local_files_0123456789';
/** Nothing listens there: a command that got as far as a request would fail with exit 1. */
const BASE_URL = 'http://127.0.0.1:9/v1';

/** Exit 2, one stderr line matching `pattern`, no stack trace. */
function expectUsage(run: { code: number; stderr: string }, pattern: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
}

function plantedFiles() {
  const dir = tempDir();
  const foreign = join(dir, 'app.db');
  const other = new Database(foreign);
  other.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)');
  other.prepare('INSERT INTO accounts (owner) VALUES (?)').run('someone');
  other.close();
  const text = join(dir, 'notes.txt');
  writeFileSync(text, 'not a database\n');
  const folder = join(dir, 'folder');
  mkdirSync(folder);
  const token = join(dir, 'token');
  writeFileSync(token, `${TOKEN}\n`, { mode: 0o600 });
  const listing = () => readdirSync(dir).sort();
  return { dir, foreign, text, folder, token, listing, bytes: readFileSync(foreign) };
}

describe('planted local files', () => {
  it('refuses another application database for every command, byte for byte unchanged', async () => {
    const files = plantedFiles();
    const before = files.listing();
    const remote = ['--base-url', BASE_URL, '--token-file', files.token];
    const runs = [
      await cli('sync', ...remote, '--db', files.foreign, '--log-level', 'silent'),
      await cli('push', ...remote, '--db', files.foreign, '--log-level', 'silent'),
      await cli(
        'enqueue',
        'task.delete',
        '--project',
        'p_1',
        '--target',
        't_1',
        '--db',
        files.foreign,
      ),
      await cli('outbox', 'list', '--db', files.foreign),
      await cli('report', '--db', files.foreign),
    ];
    for (const run of runs) {
      expectUsage(run, new RegExp(`database ${files.foreign} is not a projmirror mirror`));
    }
    expect(readFileSync(files.foreign).equals(files.bytes)).toBe(true);
    expect(files.listing()).toEqual(before);
  });

  it('refuses a text file or a directory as --db with exit 2', async () => {
    const files = plantedFiles();
    const edit = ['enqueue', 'task.delete', '--project', 'p_1', '--target', 't_1'];
    expectUsage(await cli(...edit, '--db', files.text), /is not an SQLite database/);
    expectUsage(await cli(...edit, '--db', files.folder), /is a directory/);
    expect(readFileSync(files.text, 'utf8')).toBe('not a database\n');
    expect(readdirSync(files.folder)).toEqual([]);
  });

  it('creates no mirror for an enqueue refused for its input', async () => {
    const files = plantedFiles();
    const before = files.listing();
    const fresh = join(files.dir, 'new.sqlite');
    expectUsage(
      await cli('enqueue', 'task.explode', '--project', 'p_1', '--db', fresh),
      /unknown op "task.explode"/,
    );
    expectUsage(
      await cli('enqueue', 'task.update', '--project', 'p_1', '--db', fresh),
      /task.update needs a target id/,
    );
    expectUsage(
      await cli('enqueue', 'task.create', '--project', 'p_1', '--body', '{', '--db', fresh),
      /--body "\{" is not JSON/,
    );
    expect(files.listing()).toEqual(before);
  });

  it('creates no mirror for outbox commands on a --db that does not exist', async () => {
    const files = plantedFiles();
    const before = files.listing();
    const fresh = join(files.dir, 'new.sqlite');
    expectUsage(
      await cli('outbox', 'retry', '5', '--db', fresh),
      /no outbox item 5: --db .* does not exist/,
    );
    expectUsage(await cli('outbox', 'drop', '5', '--db', fresh), /no outbox item 5/);
    const list = await cli('outbox', 'list', '--db', fresh);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('0 pending, 0 sending, 0 done, 0 failed');
    expect((await cli('outbox', 'list', '--json', '--db', fresh)).stdout.trim()).toBe('[]');
    expect(files.listing()).toEqual(before);
  });

  it('refuses /dev/zero as the token or CA file at the bound', async () => {
    const files = plantedFiles();
    const db = join(files.dir, 'never.sqlite');
    const base = ['sync', '--base-url', BASE_URL, '--db', db];
    expectUsage(
      await cli(...base, '--token-file', '/dev/zero'),
      /token file \/dev\/zero is larger than 4096 bytes/,
    );
    expectUsage(
      await cli(...base, '--token-file', files.token, '--ca-file', '/dev/zero'),
      /CA file \/dev\/zero is larger than 1048576 bytes/,
    );
    expect(files.listing()).not.toContain('never.sqlite');
  });
});
