import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NetworkError, RemoteStatusError, type WriteRequest } from '../../src/domain/index.js';
import { clientOf, drive, failure, standIn, TOKEN, type Reply } from './stand-in.js';

const OK: Reply = { status: 200, body: [{ id: 'p_1' }] };

describe('retries of reads', () => {
  it('retries 5xx with exponential backoff and full jitter, then succeeds', async () => {
    const stand = await standIn((_seen, index) =>
      index < 3 ? { status: 503, body: { code: 'unavailable', message: 'later' } } : OK,
    );
    const { remote, clock } = clientOf(stand);
    const delays: number[] = [];
    const projects = await drive(remote.listProjects(), clock, delays);
    expect(projects).toEqual([{ id: 'p_1' }]);
    expect(stand.seen).toHaveLength(4);
    // random() = 0.5 under bounds of 500, 1000, 2000 ms.
    expect(delays).toEqual([250, 500, 1000]);
  });

  it('gives up after maxAttempts with the last status error', async () => {
    const stand = await standIn(() => ({ status: 500, body: { code: 'boom', message: 'down' } }));
    const { remote, clock } = clientOf(stand, { maxAttempts: 3 });
    const error = await failure(drive(remote.listProjects(), clock));
    expect(stand.seen).toHaveLength(3);
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error.message).toBe('GET listProjects: HTTP 500 boom: down');
    expect((error as RemoteStatusError).retryable).toBe(true);
  });

  it('caps every backoff at backoffMaxMs', async () => {
    const stand = await standIn((_seen, index) => (index < 4 ? { status: 502, body: {} } : OK));
    const { remote, clock } = clientOf(stand, { random: () => 0.999, backoffMaxMs: 1_200 });
    const delays: number[] = [];
    await drive(remote.listProjects(), clock, delays);
    expect(delays).toEqual([499, 999, 1198, 1198]);
  });

  it('retries a connection reset by the server', async () => {
    const stand = await standIn((_seen, index, res) => {
      if (index === 0) {
        res.socket?.destroy();
        return undefined;
      }
      return OK;
    });
    const { remote, clock } = clientOf(stand);
    expect(await drive(remote.listProjects(), clock)).toEqual([{ id: 'p_1' }]);
    expect(stand.seen).toHaveLength(2);
  });

  it('retries a response that does not come within headersTimeoutMs', async () => {
    const stand = await standIn((_seen, index) => (index === 0 ? undefined : OK));
    const { remote, clock } = clientOf(stand, { headersTimeoutMs: 150 });
    expect(await drive(remote.listProjects(), clock)).toEqual([{ id: 'p_1' }]);
    expect(stand.seen).toHaveLength(2);
  });

  it('names a refused connection after the last attempt', async () => {
    const port = await freePort();
    const { remote, clock } = clientOf(
      { baseUrl: `http://127.0.0.1:${port}/v1` },
      { maxAttempts: 2 },
    );
    const delays: number[] = [];
    const error = await failure(drive(remote.listProjects(), clock, delays));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      `GET listProjects: connection refused (127.0.0.1:${port}, ECONNREFUSED)`,
    );
    expect(delays).toEqual([250]);
  });
});

describe('permanent errors', () => {
  it('does not retry a 4xx; the error carries the service code and never the token', async () => {
    const stand = await standIn((seen) => ({
      status: 401,
      body: { code: 'unauthorized', message: `token ${seen.headers['authorization']} revoked` },
    }));
    const { remote, clock } = clientOf(stand);
    const error = await failure(remote.listMembers('p_1'));
    expect(stand.seen).toHaveLength(1);
    expect(clock.pendingSleeps).toBe(0);
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error).toMatchObject({ status: 401, serviceCode: 'unauthorized', retryable: false });
    expect(error.message).toBe(
      'GET listMembers of p_1: HTTP 401 unauthorized: token Bearer [token] revoked',
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it('tolerates a non-JSON error body', async () => {
    const stand = await standIn(() => ({ status: 403, body: '<h1>Forbidden</h1>' }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.listResources('p_1'));
    expect(error).toMatchObject({ status: 403, serviceCode: undefined });
    expect(error.message).toBe('GET listResources of p_1: HTTP 403: non-JSON body');
  });

  it('never follows a redirect, so the token never reaches another origin', async () => {
    const elsewhere = await standIn(() => OK);
    const stand = await standIn(() => ({
      status: 302,
      headers: { location: `${elsewhere.baseUrl}/projects` },
    }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.listProjects());
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error.message).toBe(
      `GET listProjects: HTTP 302: redirect to ${elsewhere.baseUrl}/projects not followed`,
    );
    expect(elsewhere.seen).toHaveLength(0);
    expect(stand.seen).toHaveLength(1);
  });
});

describe('writes', () => {
  const create: WriteRequest = {
    route: 'createTask',
    params: { projectId: 'p_1' },
    body: '{"name":"Dig","startDate":"2026-01-05","endDate":"2026-01-09","status":"NotStarted"}',
    idempotencyKey: 'key-1',
    projectId: 'p_1',
  };

  it('sends the exact body with JSON content type and the idempotency key', async () => {
    const stand = await standIn(() => ({ status: 201, body: { id: 't_9', name: 'Dig' } }));
    const { remote, gate } = clientOf(stand);
    const response = await remote.send(create);
    expect(response).toEqual({ status: 201, body: { id: 't_9', name: 'Dig' } });
    expect(stand.seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/projects/p_1/tasks',
      body: create.body,
    });
    expect(stand.seen[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': 'key-1',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(gate.acquired).toEqual(['push']);
  });

  it('answers null for an empty body and sends no content type without a body', async () => {
    const stand = await standIn(() => ({ status: 204 }));
    const { remote } = clientOf(stand);
    const response = await remote.send({
      route: 'deleteTask',
      params: { taskId: 't_1' },
      projectId: 'p_1',
    });
    expect(response).toEqual({ status: 204, body: null });
    expect(stand.seen[0]).toMatchObject({ method: 'DELETE', url: '/v1/tasks/t_1' });
    expect(stand.seen[0]?.headers['content-type']).toBeUndefined();
  });

  it('makes one attempt on a 5xx and throws it as retryable', async () => {
    const stand = await standIn(() => ({ status: 503, body: '<html>down</html>' }));
    const { remote, clock } = clientOf(stand);
    const error = await failure(remote.send(create));
    expect(stand.seen).toHaveLength(1);
    expect(clock.pendingSleeps).toBe(0);
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(error.message).toBe('POST createTask of p_1: HTTP 503: non-JSON body');
  });

  it('makes one attempt on a network error', async () => {
    const stand = await standIn((_seen, _index, res) => {
      res.socket?.destroy();
      return undefined;
    });
    const { remote } = clientOf(stand);
    const error = await failure(remote.send(create));
    expect(stand.seen).toHaveLength(1);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toMatch(/^POST createTask of p_1: connection/);
  });

  it('throws a 4xx as permanent with the service code', async () => {
    const stand = await standIn(() => ({
      status: 409,
      body: { code: 'idempotency_conflict', message: 'key reused with another body' },
    }));
    const { remote } = clientOf(stand);
    const error = await failure(
      remote.send({ route: 'updateTask', params: { taskId: 't_1' }, body: '{}', projectId: 'p_1' }),
    );
    expect(error).toMatchObject({
      status: 409,
      serviceCode: 'idempotency_conflict',
      retryable: false,
    });
    expect(error.message).toBe(
      'PATCH updateTask t_1 of p_1: HTTP 409 idempotency_conflict: key reused with another body',
    );
  });

  it('rejects a malformed record returned by a write', async () => {
    const stand = await standIn(() => ({ status: 200, body: { name: 'no id' } }));
    const { remote } = clientOf(stand);
    await expect(
      remote.send({ route: 'updateTask', params: { taskId: 't_1' }, body: '{}', projectId: 'p_1' }),
    ).rejects.toThrow(
      'PATCH updateTask t_1 of p_1: malformed response: body: task without a string id',
    );
  });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
