import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/index.js';
import { decodeMessage } from '../../src/realtime/index.js';

describe('decodeMessage', () => {
  it('decodes every known type with a projectId into an event', () => {
    for (const type of EVENT_TYPES) {
      const data = { id: 'x_1', extra: [1] };
      expect(decodeMessage(JSON.stringify({ type, projectId: 'p_1', id: 'x_1', data }))).toEqual({
        kind: 'event',
        event: { type, projectId: 'p_1', id: 'x_1', data },
      });
    }
  });

  it('drops a data or id of the wrong kind but keeps the event', () => {
    expect(
      decodeMessage(JSON.stringify({ type: 'task.updated', projectId: 'p_1', id: 7, data: [1] })),
    ).toEqual({ kind: 'event', event: { type: 'task.updated', projectId: 'p_1' } });
    expect(
      decodeMessage(JSON.stringify({ type: 'project.updated', projectId: 'p_1', data: null })),
    ).toEqual({ kind: 'event', event: { type: 'project.updated', projectId: 'p_1' } });
  });

  it('turns what it cannot use into a hint, naming the project when the message does', () => {
    const cases: [string, object][] = [
      ['', { kind: 'hint', reason: 'message is not JSON' }],
      ['{"type": "task.updated", ', { kind: 'hint', reason: 'message is not JSON' }],
      [
        '[{"type":"task.updated","projectId":"p_1"}]',
        { kind: 'hint', reason: 'message is JSON array' },
      ],
      ['null', { kind: 'hint', reason: 'message is JSON but not an object' }],
      ['"task.updated"', { kind: 'hint', reason: 'message is JSON but not an object' }],
      ['{"projectId":"p_4"}', { kind: 'hint', projectId: 'p_4', reason: 'message without a type' }],
      [
        '{"type":"task.moved","projectId":"p_5"}',
        { kind: 'hint', projectId: 'p_5', reason: 'unknown message type "task.moved"' },
      ],
      [
        '{"type":null,"projectId":"p_6"}',
        { kind: 'hint', projectId: 'p_6', reason: 'message type is null' },
      ],
      ['{"type":42}', { kind: 'hint', reason: 'message type is a number' }],
      [
        '{"type":"task.created","projectId":""}',
        { kind: 'hint', reason: 'task.created message without a projectId' },
      ],
      [
        '{"type":"task.created","projectId":12}',
        { kind: 'hint', reason: 'task.created message without a projectId' },
      ],
    ];
    for (const [text, expected] of cases) expect(decodeMessage(text), text).toEqual(expected);
  });

  it('quotes at most 64 characters of an unknown type', () => {
    const change = decodeMessage(JSON.stringify({ type: 'x'.repeat(10_000) }));
    expect(change).toEqual({ kind: 'hint', reason: `unknown message type "${'x'.repeat(64)}…"` });
  });
});
