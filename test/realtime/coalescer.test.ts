import { describe, expect, it } from 'vitest';
import type { RealtimeEvent } from '../../src/domain/index.js';
import {
  Coalescer,
  DEFAULT_COALESCE_MS,
  REFRESH_PARTS,
  type Change,
  type RefreshRequest,
} from '../../src/realtime/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { LEVEL, captureLogger } from '../fixtures/capture-log.js';

function setup(onRefreshThrows = false) {
  const clock = new FakeClock();
  const log = captureLogger();
  const events: RealtimeEvent[] = [];
  const refreshes: RefreshRequest[] = [];
  const coalescer = new Coalescer({
    clock,
    logger: log.logger,
    onEvent: (event) => events.push(event),
    onRefresh: (request) => {
      if (onRefreshThrows) throw new Error('refresh bug');
      refreshes.push(request);
    },
  });
  return { clock, log, events, refreshes, coalescer };
}

const event = (e: RealtimeEvent): Change => ({ kind: 'event', event: e });

describe('Coalescer', () => {
  it('turns 100 data-less events for one project within a second into one refresh', async () => {
    const { clock, coalescer, refreshes, events } = setup();
    for (let i = 0; i < 100; i += 1) {
      coalescer.push(event({ type: 'task.updated', projectId: 'p_1', id: `t_${i}` }));
      await clock.advance(9);
    }
    expect(refreshes).toEqual([]);
    await clock.advance(DEFAULT_COALESCE_MS - 900);
    expect(refreshes).toEqual([
      { scope: 'project', projectId: 'p_1', parts: ['tasks'], hinted: false },
    ]);
    expect(events).toEqual([]);
    await clock.advance(10 * DEFAULT_COALESCE_MS);
    expect(refreshes).toHaveLength(1);
  });

  it('asks for one refresh per project, merging the parts each one needs', async () => {
    const { clock, coalescer, refreshes } = setup();
    coalescer.push(event({ type: 'task.created', projectId: 'p_1' }));
    coalescer.push(event({ type: 'dependency.changed', projectId: 'p_1', id: 'd_1' }));
    coalescer.push(event({ type: 'member.changed', projectId: 'p_2' }));
    coalescer.push(event({ type: 'member.changed', projectId: 'p_2' }));
    await clock.advance(DEFAULT_COALESCE_MS);
    expect(refreshes).toEqual([
      { scope: 'project', projectId: 'p_1', parts: ['tasks', 'dependencies'], hinted: false },
      { scope: 'project', projectId: 'p_2', parts: ['members'], hinted: false },
    ]);
  });

  it('asks for one task when only that task was named, and the project when more was', async () => {
    const { clock, coalescer, refreshes } = setup();
    coalescer.push(event({ type: 'task.updated', projectId: 'p_1', id: 't_1' }));
    coalescer.push(event({ type: 'task.created', projectId: 'p_1', id: 't_1' }));
    coalescer.push(event({ type: 'task.updated', projectId: 'p_2', id: 't_2' }));
    coalescer.push(event({ type: 'project.updated', projectId: 'p_2' }));
    await clock.advance(DEFAULT_COALESCE_MS);
    expect(refreshes).toEqual([
      { scope: 'task', projectId: 'p_1', taskId: 't_1' },
      { scope: 'project', projectId: 'p_2', parts: ['project', 'tasks'], hinted: false },
    ]);
  });

  it('passes events with data, and task deletions by id, straight through', () => {
    const { coalescer, refreshes, events } = setup();
    const withData: RealtimeEvent = {
      type: 'task.updated',
      projectId: 'p_1',
      id: 't_1',
      data: { id: 't_1' },
    };
    const deletion: RealtimeEvent = { type: 'task.deleted', projectId: 'p_1', id: 't_2' };
    coalescer.push(event(withData));
    coalescer.push(event(deletion));
    expect(events).toEqual([withData, deletion]);
    expect(coalescer.pendingCount).toBe(0);
    coalescer.flush();
    expect(refreshes).toEqual([]);
  });

  it('reads a whole project for a hint naming it, and everything for a reconnect or a bare hint', async () => {
    const { clock, coalescer, refreshes } = setup();
    coalescer.push({ kind: 'hint', projectId: 'p_1', reason: 'unknown message type "x"' });
    await clock.advance(DEFAULT_COALESCE_MS);
    expect(refreshes).toEqual([
      { scope: 'project', projectId: 'p_1', parts: [...REFRESH_PARTS], hinted: true },
    ]);

    coalescer.push(event({ type: 'task.updated', projectId: 'p_2' }));
    coalescer.push({ kind: 'reconnected' });
    coalescer.push({ kind: 'hint', reason: 'message is not JSON' });
    expect(coalescer.pendingCount).toBe(1);
    await clock.advance(DEFAULT_COALESCE_MS);
    expect(refreshes.slice(1)).toEqual([{ scope: 'all', reason: 'reconnected' }]);
  });

  it('survives a throwing handler and drops everything once closed', async () => {
    const { clock, coalescer, log } = setup(true);
    coalescer.push(event({ type: 'resource.changed', projectId: 'p_1' }));
    await clock.advance(DEFAULT_COALESCE_MS);
    expect(log.lines.filter((line) => line.level === LEVEL.error)).toMatchObject([
      { msg: 'realtime: coalescer handler failed', error: 'Error: refresh bug' },
    ]);
    coalescer.push(event({ type: 'resource.changed', projectId: 'p_1' }));
    coalescer.close();
    expect(clock.pendingSleeps).toBe(0);
    coalescer.push(event({ type: 'resource.changed', projectId: 'p_1' }));
    expect(coalescer.pendingCount).toBe(0);
  });
});
