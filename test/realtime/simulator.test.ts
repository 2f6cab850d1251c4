import { Agent, request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RealtimeEvent } from '../../src/domain/index.js';
import { DEFAULT_TOKEN_REFUSED_RETRY_MS, type Change } from '../../src/realtime/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { startListener } from './start-listener.js';
import { LEVEL } from '../fixtures/capture-log.js';
import { waitFor, waitForPause } from './servers.js';

const TOKEN = 'glt_test_realtime_sim_7d20c9';

const listen = (url: string, token: string, caFile: string | undefined) =>
  startListener(new URL(url), token, caFile);

const eventsOf = (changes: Change[], type: RealtimeEvent['type']): RealtimeEvent[] =>
  changes.flatMap((change) =>
    change.kind === 'event' && change.event.type === type ? [change.event] : [],
  );

describe('RealtimeListener against the simulator', () => {
  it('receives a write made over HTTPS as an event carrying the record', async () => {
    const sim = await startTestSimulator({ tls: true, projects: 1, tasks: 3, tokens: [TOKEN] });
    const { listener, changes, log } = listen(sim.realtimeUrl, TOKEN, sim.caFile);
    await sim.realtime.waitForConnections(1);
    await waitFor(() => listener.connected, 'the connection');

    const [project] = sim.service.listProjects();
    const task = project && sim.service.listTasks(project.id)[0];
    if (!project || !task) throw new Error('the simulator seeded no task');
    const agent = new Agent({ connect: { ca: sim.ca } });
    onTestFinished(() => agent.close());
    const response = await request(`${sim.baseUrl}/tasks/${task.id}`, {
      method: 'PATCH',
      dispatcher: agent,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ progress: 40 }),
    });
    expect(response.statusCode).toBe(200);
    await response.body.dump();

    await waitFor(() => eventsOf(changes, 'task.updated').length === 1, 'the task.updated event');
    const [event] = eventsOf(changes, 'task.updated');
    expect(event).toMatchObject({
      type: 'task.updated',
      projectId: project.id,
      id: task.id,
      data: { id: task.id, progress: 40, status: 'InProgress' },
    });
    expect(changes.filter((change) => change.kind !== 'event')).toEqual([]);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('reconnects after the simulator drops it, and reports a refused token once', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1, tokens: [TOKEN] });
    const good = listen(sim.realtimeUrl, TOKEN, undefined);
    await sim.realtime.waitForConnections(1);
    sim.realtime.dropAll();
    await waitForPause(good.clock, 500);
    await good.clock.advance(500);
    await waitFor(() => good.listener.connected, 'the reconnection');
    expect(good.changes).toEqual([{ kind: 'reconnected' }]);

    const refused = listen(sim.realtimeUrl, 'glt_test_unknown_token_0000', undefined);
    await waitForPause(refused.clock, DEFAULT_TOKEN_REFUSED_RETRY_MS);
    expect(refused.log.lines.filter((line) => line.level === LEVEL.error)).toMatchObject([
      { msg: 'realtime: HTTP 401 unauthorized: the token was refused on the upgrade' },
    ]);
    expect(refused.listener.connected).toBe(false);
  });
});
