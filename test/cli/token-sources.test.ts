import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { labelOfFile, readTokens } from '../../src/cli/token-sources.js';
import { UsageError } from '../../src/domain/index.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';

/** Writes a token file (0600) and returns its path. */
function tokenFile(dir: string, name: string, value: string): string {
  const file = join(dir, name);
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return file;
}

describe('token sources', () => {
  it('labels tokens by file name: repeated --token-file, and files joined by ":"', () => {
    const dir = tempDir();
    const client = tokenFile(dir, 'client.token', 'glt_test_client');
    const team = tokenFile(dir, 'team', 'glt_test_team');
    expect(readTokens({ tokenFile: [client, team] }, {})).toEqual([
      { label: 'client', secret: 'glt_test_client' },
      { label: 'team', secret: 'glt_test_team' },
    ]);
    expect(readTokens({ tokenFile: `${client}:${team}` }, {}).map((t) => t.label)).toEqual([
      'client',
      'team',
    ]);
    expect(labelOfFile('/run/credentials/x/projmirror-token')).toBe('default');
    expect(labelOfFile('/run/credentials/x/projmirror-token.client')).toBe('client');
  });

  it('reads every systemd credential projmirror-token and projmirror-token.<label>', () => {
    const dir = tempDir();
    tokenFile(dir, 'projmirror-token', 'glt_test_default');
    tokenFile(dir, 'projmirror-token.client', 'glt_test_client');
    tokenFile(dir, 'other-credential', 'glt_test_other');
    expect(readTokens({}, { CREDENTIALS_DIRECTORY: dir })).toEqual([
      { label: 'default', secret: 'glt_test_default' },
      { label: 'client', secret: 'glt_test_client' },
    ]);
  });

  it("takes the config file's token-files with labels and scopes", () => {
    const dir = tempDir();
    const one = tokenFile(dir, 'one', 'glt_test_one');
    const two = tokenFile(dir, 'two', 'glt_test_two');
    const tokens = readTokens(
      { tokenFiles: [{ file: one, label: 'client', scope: 'project' }, two] },
      {},
    );
    expect(tokens).toEqual([
      { label: 'client', secret: 'glt_test_one', scope: 'project' },
      { label: 'two', secret: 'glt_test_two' },
    ]);
    expect(() => readTokens({ tokenFiles: [{ file: one, scope: 'team' }] }, {})).toThrow(
      'config "token-files"[0].scope must be "project" or "account", not "team"',
    );
    expect(() => readTokens({ tokenFiles: [{ path: one }] }, {})).toThrow(/unknown key "path"/);
  });

  it('refuses duplicate labels and the same token twice, naming the label, never the token', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'x'));
    mkdirSync(join(dir, 'y'));
    const first = tokenFile(join(dir, 'x'), 'token', 'glt_test_first');
    const second = tokenFile(join(dir, 'y'), 'token', 'glt_test_second');
    expect(() => readTokens({ tokenFile: [first, second] }, {})).toThrow(
      new UsageError('token label "token" is given twice'),
    );
    const again = tokenFile(dir, 'again', 'glt_test_first');
    const error = (() => {
      try {
        readTokens({ tokenFile: [first, again] }, {});
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toBe('tokens token and again hold the same token');
    expect(error?.message).not.toContain('glt_test');
  });

  it('exits 2 with one line for duplicate labels; enqueue --token refuses a token and keeps a label', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'x'));
    mkdirSync(join(dir, 'y'));
    const first = tokenFile(join(dir, 'x'), 'token', 'glt_test_first');
    const second = tokenFile(join(dir, 'y'), 'token', 'glt_test_second');
    const db = join(dir, 'm.sqlite');
    const base = ['--base-url', 'http://127.0.0.1:9/v1', '--db', db];
    const sync = await runCli(['sync', ...base, '--token-file', first, '--token-file', second]);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toBe('projmirror: token label "token" is given twice\n');

    const body = ['--project', 'p_1', '--target', 't_1', '--db', db];
    const secret = await runCli(['enqueue', 'task.delete', ...body, '--token', 'glt_test_x']);
    expect(secret.code).toBe(2);
    expect(secret.stderr).toMatch(/process list/);
    const labelled = await runCli([
      'enqueue',
      'task.delete',
      ...body,
      '--token',
      'client',
      '--json',
    ]);
    expect(labelled.code).toBe(0);
    const check = new Database(db, { readonly: true });
    expect(check.prepare('SELECT token_label FROM outbox').pluck().all()).toEqual(['client']);
    check.close();
    const bad = await runCli(['enqueue', 'task.delete', ...body, '--token', 'a b']);
    expect(bad.code).toBe(2);
  });
});
