/**
 * Realtime events from a hostile service reach the mirror only through the one validator: a
 * record past a bound is refused whole and the mirror stays as it was (issue 12, items 8, 9).
 */
import { describe, expect, it } from 'vitest';
import { MalformedResponseError, MAX_FIELD_CHARS } from '../../src/domain/index.js';
import { decodeMessage } from '../../src/realtime/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { applyEvent, snapshot } from '../mirror/helpers.js';
import { engineFor, integrity } from './hostile-proxy.js';

const TOKEN = 'glt_test_hostile_events_0123456789';

describe('hostile realtime events', () => {
  it('refuses an event whose record is past a bound; nests too deep never gets that far', async () => {
    const sim = await startTestSimulator({
      projects: 1,
      tasks: [2],
      tokens: [TOKEN],
      limits: false,
    });
    const { db } = tempDatabase();
    const mirror = engineFor(sim.baseUrl, TOKEN, db);
    expect((await mirror.syncAll()).ok).toBe(true);
    const before = snapshot(db);
    const taskId = (before['tasks']?.[0] as { id: string }).id;

    const message = (data: unknown) =>
      JSON.stringify({ type: 'task.updated', projectId: 'p_1', id: taskId, data });
    const huge = decodeMessage(message({ id: taskId, name: 'N'.repeat(MAX_FIELD_CHARS + 1) }));
    expect(huge.kind).toBe('event');
    if (huge.kind !== 'event') return;
    await expect(applyEvent(mirror, huge.event)).rejects.toThrow(MalformedResponseError);
    await expect(applyEvent(mirror, huge.event)).rejects.toThrow(
      `event task.updated of p_1: malformed response: record: task ${taskId} has a string of ${MAX_FIELD_CHARS + 1} characters in name`,
    );

    let nested: unknown = 1;
    for (let level = 0; level < 40; level += 1) nested = [nested];
    expect(decodeMessage(message({ id: taskId, custom: nested }))).toEqual({
      kind: 'hint',
      reason: 'message nests deeper than 33 levels',
    });
    expect(integrity(db)).toBe('ok');
    expect(snapshot(db)).toEqual(before);
  });
});
