/**
 * `export` in a directory others can write to (issue 12, items 1 and 4): planted symlinks are
 * never followed, and a failure to write is reported as what happened.
 */
import { lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_VIEW_NAMES } from '../../src/report/index.js';
import { tempDatabase, tempDir } from '../fixtures/db.js';
import { cli } from '../outbox/in-process-cli.js';

function emptyMirror(): string {
  const { db, file } = tempDatabase();
  db.close();
  return file;
}

describe('export against planted files', () => {
  it('follows no symlink planted at the old temporary name or the final name', async () => {
    const file = emptyMirror();
    const victims = tempDir();
    const out = tempDir();
    const planted: string[] = [];
    for (const view of REPORT_VIEW_NAMES) {
      for (const name of [`${view}.csv.partial`, `${view}.csv`]) {
        const victim = join(victims, name);
        writeFileSync(victim, 'precious\n');
        symlinkSync(victim, join(out, name));
        planted.push(name);
      }
    }
    const run = await cli('export', '--format', 'csv', '--out', out, '--db', file);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    for (const name of readdirSync(victims)) {
      expect(readFileSync(join(victims, name), 'utf8')).toBe('precious\n');
    }
    for (const view of REPORT_VIEW_NAMES) {
      const written = join(out, `${view}.csv`);
      expect(lstatSync(written).isFile()).toBe(true);
      expect(readFileSync(written, 'utf8')).toMatch(/^[a-z_]+(,[a-z_]+)+\r\n/);
    }
    // Nothing left behind but what was planted (the partial links) and the exports.
    const left = readdirSync(out).filter((name) => name.endsWith('.partial'));
    expect(left.sort()).toEqual(planted.filter((name) => name.endsWith('.partial')).sort());
  });

  it('reports the error that happened (EACCES), not a busy connection', async () => {
    const file = emptyMirror();
    // /sys refuses new files even to root, as an unwritable directory refuses other users.
    const run = await cli('export', '--format', 'csv', '--out', '/sys', '--db', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('projmirror: cannot write /sys/v_project_progress.csv (EACCES)\n');
  });
});
