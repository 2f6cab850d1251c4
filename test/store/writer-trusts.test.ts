/**
 * Validate once, at the edge (issue 36): the mirror's writer trusts the types of the changes it is
 * given. Records are checked where they enter — the remote client, the realtime channel's
 * `checkEvent`, the outbox's answers — and a grep of the writer finds no call of the validator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARS, type Task } from '../../src/domain/index.js';
import { makeTask } from '../mirror/fake-remote.js';
import { setup } from '../mirror/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const WRITER = join(ROOT, 'src/store/writer');

/** A call of one of the validator's checks (`checkTask(`, `checkList(`...). */
const VALIDATOR_CALL = /\bcheck(?:Record|Task|Project|List|TaskPage)\s*\(/;

function text(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

describe('the writer trusts the types (one check, at the edge)', () => {
  it('finds no call of the validator in the writer', () => {
    const files = readdirSync(WRITER).filter((name) => name.endsWith('.ts'));
    expect(files).toContain('writer.ts');
    const checking = files.filter((name) =>
      VALIDATOR_CALL.test(readFileSync(join(WRITER, name), 'utf8')),
    );
    expect(checking).toEqual([]);
    // The grep is not vacuous: the edges call the validator.
    expect(VALIDATOR_CALL.test(text('src/realtime/check-event.ts'))).toBe(true);
    expect(VALIDATOR_CALL.test(text('src/store/outbox-queue/apply.ts'))).toBe(true);
    expect(VALIDATOR_CALL.test(text('src/remote/http-remote.ts'))).toBe(true);
    expect(text('src/daemon/changes.ts')).toMatch(/checkEvent\(event\)/);
  });

  it('writes a checked event as it is: a record the validator would refuse is not checked again', async () => {
    const { db, mirror, remote } = setup({ pageSize: 50 });
    remote.seed('p1', 3);
    expect((await mirror.syncProject('p1')).ok).toBe(true);
    // Over the validator's bound for a field: `checkEvent` would refuse it; the writer does not look.
    const name = 'N'.repeat(MAX_FIELD_CHARS + 1);
    const record: Task = { ...makeTask('p1-t1'), name, updatedAt: '2030-01-01T00:00:00.000Z' };
    const outcome = await mirror.writer.applyEvent({
      type: 'task.updated',
      projectId: 'p1',
      changes: [{ op: 'put', type: 'task', projectId: 'p1', record }],
    });
    expect(outcome).toBe('changed');
    expect(db.prepare(`SELECT name FROM tasks WHERE id = 'p1-t1'`).pluck().get()).toBe(name);
  });
});
