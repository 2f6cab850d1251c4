import type { IncomingMessage } from 'node:http';
import { describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, connectRealtime, newTask } from './helpers.js';

/** The status and `X-Trace-Id` of the answer to a WebSocket upgrade (101 or a refusal). */
function upgradeAnswer(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; traceId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const settle = (response: IncomingMessage) => {
      const traceId = response.headers['x-trace-id'];
      resolve({ status: response.statusCode ?? 0, traceId: traceId as string | undefined });
      socket.terminate();
    };
    socket.on('unexpected-response', (_request, response) => settle(response));
    socket.on('upgrade', settle);
    socket.on('error', reject);
  });
}

async function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return (await upgradeAnswer(url, headers)).status;
}

describe('realtime channel (contract section 5)', () => {
  test('the upgrade needs a valid bearer token (401 otherwise)', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    expect(await upgradeStatus(sim.realtimeUrl, {})).toBe(401);
    expect(await upgradeStatus(sim.realtimeUrl, { authorization: 'Bearer glt_test_unknown' })).toBe(
      401,
    );
    expect(await upgradeStatus(sim.realtimeUrl, { authorization: `Bearer ${sim.token}` })).toBe(
      101,
    );
    expect(sim.requestLog.count({ route: 'realtime', status: 401 })).toBe(2);
  });

  test('every upgrade answer, the 101 and each refusal, carries X-Trace-Id (spec 7 rule 2)', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const auth = { authorization: `Bearer ${sim.token}` };
    sim.realtime.refuseNext(1, 503);
    const answers = [
      await upgradeAnswer(sim.realtimeUrl, auth),
      await upgradeAnswer(sim.realtimeUrl, {}),
      await upgradeAnswer(sim.realtimeUrl.replace('/realtime', '/elsewhere'), auth),
      await upgradeAnswer(sim.realtimeUrl, auth),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([503, 401, 404, 101]);
    const traceIds = answers.map((answer) => answer.traceId);
    expect(traceIds.every((id) => typeof id === 'string' && /^[0-9a-f]{16}$/.test(id))).toBe(true);
    expect(new Set(traceIds).size).toBe(traceIds.length);
    const logged = sim.requestLog.filter({ route: 'realtime' }).map((entry) => entry.traceId);
    expect(logged).toEqual(traceIds);
  });

  test('API writes are broadcast as {type, projectId, id, data}', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    await client(sim).get('/projects/p_1');
    const events = await connectRealtime(sim, sim.token);
    const created = (await (
      await client(sim).send('POST', '/projects/p_1/tasks', newTask())
    ).json()) as { id: string };
    const event = await events.waitFor((message) => message['type'] === 'task.created');
    expect(event).toEqual({
      type: 'task.created',
      projectId: 'p_1',
      id: created.id,
      data: created,
    });
    await client(sim).send('PATCH', `/tasks/${created.id}`, { progress: 50 });
    const updated = await events.waitFor((message) => message['type'] === 'task.updated');
    expect(updated['data']).toMatchObject({ id: created.id, progress: 50, status: 'InProgress' });
    await client(sim).send('DELETE', `/tasks/${created.id}`);
    const deleted = await events.waitFor((message) => message['type'] === 'task.deleted');
    expect(deleted).toEqual({ type: 'task.deleted', projectId: 'p_1', id: created.id });
  });

  test('scripted writes are broadcast like API writes', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const events = await connectRealtime(sim, sim.token);
    const resource = sim.service.createResource('p_1', { name: 'Van' });
    expect(await events.waitFor((message) => message['type'] === 'resource.changed')).toEqual({
      type: 'resource.changed',
      projectId: 'p_1',
      id: resource.id,
      data: resource,
    });
    sim.service.setReadOnly('p_1', 'archived');
    const project = await events.waitFor((message) => message['type'] === 'project.updated');
    expect(project['data']).toMatchObject({ id: 'p_1', readOnlyReason: 'archived' });
  });

  test('events reach only the connections whose token can see the project', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 0 });
    const pinned = sim.service.createToken({ projects: ['p_2'] });
    const account = await connectRealtime(sim, sim.token);
    const project = await connectRealtime(sim, pinned);
    sim.service.createTask('p_1', { name: 'Only for the account token' });
    sim.service.createTask('p_2', { name: 'For both' });
    await account.waitFor((message) => message['projectId'] === 'p_2');
    await project.waitFor((message) => message['projectId'] === 'p_2');
    expect(account.messages.some((text) => text.includes('"p_1"'))).toBe(true);
    expect(project.messages.some((text) => text.includes('"p_1"'))).toBe(false);
  });

  test('realtimeData: false leaves data out of events', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0, realtimeData: false });
    const events = await connectRealtime(sim, sim.token);
    const task = sim.service.createTask('p_1');
    const event = await events.waitFor((message) => message['type'] === 'task.created');
    expect(event).toEqual({ type: 'task.created', projectId: 'p_1', id: task.id });
  });

  test('raw text can be sent, and every connection dropped or refused', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const events = await connectRealtime(sim, sim.token);
    sim.realtime.sendRaw('not json {');
    await expect.poll(() => events.messages).toContain('not json {');
    const closed = new Promise<number>((resolve) =>
      events.socket.on('close', (code) => resolve(code)),
    );
    sim.realtime.dropAll();
    expect(await closed).toBe(1006); // abnormal: no close frame
    await expect.poll(() => sim.realtime.connectionCount).toBe(0);
    sim.realtime.refuseNext(1, 503);
    expect(await upgradeStatus(sim.realtimeUrl, { authorization: `Bearer ${sim.token}` })).toBe(
      503,
    );
    expect(await upgradeStatus(sim.realtimeUrl, { authorization: `Bearer ${sim.token}` })).toBe(
      101,
    );
  });

  test('revoking a token closes its connections', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const token = sim.service.createToken();
    const events = await connectRealtime(sim, token);
    const closed = new Promise<number>((resolve) =>
      events.socket.on('close', (code) => resolve(code)),
    );
    sim.service.revokeToken(token);
    expect(await closed).toBe(1008);
  });
});
