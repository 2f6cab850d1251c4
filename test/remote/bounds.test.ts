/** The client's bounds on what a service sends: the request deadline, body caps, echoed tokens. */
import { describe, expect, it } from 'vitest';
import {
  MalformedResponseError,
  NetworkError,
  RemoteStatusError,
  type WriteRequest,
} from '../../src/domain/index.js';
import { MAX_ERROR_BODY_BYTES, MAX_RECORD_BODY_BYTES } from '../../src/remote/bounds.js';
import { clientOf, drive, failure, standIn, TOKEN } from './stand-in.js';

const CREATE: WriteRequest = {
  route: 'createTask',
  params: { projectId: 'p_1' },
  projectId: 'p_1',
  body: '{"name":"x"}',
  idempotencyKey: 'k1',
};

describe('the request deadline', () => {
  it('ends four trickled answers at the deadline, so they stall no other request', async () => {
    const stand = await standIn((seen, _index, res) => {
      if (!seen.url.includes('/members')) return { status: 200, body: [{ id: 'p_1' }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(drip));
      return undefined;
    });
    const { remote } = clientOf(stand, { requestDeadlineMs: 300, maxAttempts: 1 });
    const started = Date.now();
    const stalled = [1, 2, 3, 4].map((n) => failure(remote.listMembers(`p_${n}`)));
    // Four connections, the agent's maximum, are held by the trickles until their deadline; a
    // read queued behind them gets a connection then, within its own deadline.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await remote.listProjects()).toEqual([{ id: 'p_1' }]);
    for (const error of await Promise.all(stalled)) {
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.message).toMatch(/no whole answer within the request deadline of 300 ms$/);
    }
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('body bounds', () => {
  it('refuses a record body past MAX_RECORD_BODY_BYTES', async () => {
    const big = JSON.stringify({ id: 't_1', name: 'x'.repeat(MAX_RECORD_BODY_BYTES) });
    const stand = await standIn(() => ({ status: 200, body: big }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.getTask('t_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toBe(
      `GET getTask t_1: malformed response: body over ${MAX_RECORD_BODY_BYTES} bytes (the bound)`,
    );
  });

  it('cuts a huge error body instead of refusing it: a 5xx to a write stays retryable', async () => {
    const html = `<html>${'x'.repeat(8 * 1024 * 1024)}</html>`;
    const stand = await standIn(() => ({ status: 502, body: html }));
    const { remote, clock } = clientOf(stand);
    const error = await failure(drive(remote.send(CREATE), clock));
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect((error as RemoteStatusError).retryable).toBe(true);
    expect(MAX_ERROR_BODY_BYTES).toBeLessThan(html.length);
  });
});

describe('service text in errors', () => {
  it('takes the token out of an error answer, escapes control characters and cuts it', async () => {
    const message = `bad Bearer ${TOKEN}\u001b[31m\u202e${'m'.repeat(1_000)}`;
    const stand = await standIn(() => ({
      status: 400,
      body: { code: `no\n${TOKEN}`, message },
    }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.send(CREATE));
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toMatch(
      /^POST createTask of p_1: HTTP 400 no \[token\]: bad Bearer \[token\]\\x1b\[31m\\u202em+…$/,
    );
    expect(error.message.length).toBeLessThan(300);
  });

  it('refuses a write answer echoing the token, so that it is never stored', async () => {
    const stand = await standIn(() => ({ status: 201, body: { id: `t-${TOKEN}`, name: 'x' } }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.send(CREATE));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('the answer holds the token');
  });
});

describe('answers no record check walks', () => {
  it('refuses a reorder answer nested past the bound, before anything serializes it', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const stand = await standIn(() => ({ status: 200, body: deep }));
    const { remote } = clientOf(stand);
    const error = await failure(
      remote.send({
        route: 'reorderTasks',
        params: { projectId: 'p_1' },
        projectId: 'p_1',
        body: '{"taskIds":[]}',
      }),
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toBe(
      'POST reorderTasks of p_1: malformed response: body nests deeper than 33 levels',
    );
  });
});

describe('the response metric', () => {
  it('never carries the token, even in an error answer code', async () => {
    const stand = await standIn(() => ({ status: 429, body: { code: `Bearer ${TOKEN}` } }));
    const codes: (string | undefined)[] = [];
    const { remote } = clientOf(stand, {
      maxRateLimitRetries: 0,
      onResponse: (metric) => codes.push(metric.code),
    });
    await failure(remote.listProjects());
    expect(codes).toEqual(['Bearer [token]']);
  });
});
