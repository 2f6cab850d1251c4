import { onTestFinished, describe, expect, it } from 'vitest';
import { ProjmirrorError, UsageError } from '../../src/domain/index.js';
import {
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_STABLE_CONNECTION_MS,
  DEFAULT_TOKEN_REFUSED_RETRY_MS,
  RealtimeListener,
  type Change,
  type RealtimeListenerOptions,
  type RealtimeStatus,
} from '../../src/realtime/index.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';
import { LEVEL, captureLogger } from '../fixtures/capture-log.js';
import { startRawServer, startWsServer, waitFor, waitForPause } from './servers.js';

const TOKEN = 'glt_test_realtime_listener_5f1c';
/** With `random` fixed at 0.5, attempt n waits half of min(max, 1000 * 2^n). */
const FIRST_DELAY_MS = 500;

function setup(url: URL, overrides: Partial<RealtimeListenerOptions> = {}) {
  const clock = new FakeClock();
  const log = captureLogger();
  const changes: Change[] = [];
  const statuses: RealtimeStatus[] = [];
  const listener = new RealtimeListener({
    url,
    token: TOKEN,
    clock,
    logger: log.logger,
    onChange: (change) => changes.push(change),
    onStatus: (status) => statuses.push(status),
    random: () => 0.5,
    ...overrides,
  });
  onTestFinished(() => listener.stop());
  const atLevel = (level: number) => log.lines.filter((line) => line.level === level);
  return { clock, log, changes, statuses, listener, atLevel };
}

const TASK = { id: 't_1', name: 'Dig', status: 'InProgress', progress: 10 };

describe('RealtimeListener', () => {
  it('sends the bearer token on the upgrade and decodes every message, good or bad', async () => {
    const server = await startWsServer();
    server.wss.on('connection', (socket) => {
      socket.send(
        JSON.stringify({ type: 'task.updated', projectId: 'p_1', id: 't_1', data: TASK }),
      );
      socket.send('{not json');
      socket.send(JSON.stringify({ type: 'board.repainted', projectId: 'p_2' }));
      socket.send(JSON.stringify([1, 2]));
      socket.send(JSON.stringify({ type: 'task.created', id: 't_9' }));
      socket.send(JSON.stringify({ type: 'member.changed', projectId: 'p_3', data: 'oops' }));
      socket.send(
        Buffer.from(JSON.stringify({ type: 'task.deleted', projectId: 'p_1', id: 't_2' })),
        {
          binary: true,
        },
      );
    });
    const { listener, changes, log } = setup(server.url);
    listener.start();
    await waitFor(() => changes.length === 7, 'seven changes');

    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(changes).toEqual([
      {
        kind: 'event',
        event: { type: 'task.updated', projectId: 'p_1', id: 't_1', data: TASK },
      },
      { kind: 'hint', reason: 'message is not JSON' },
      { kind: 'hint', projectId: 'p_2', reason: 'unknown message type "board.repainted"' },
      { kind: 'hint', reason: 'message is JSON array' },
      { kind: 'hint', reason: 'task.created message without a projectId' },
      { kind: 'event', event: { type: 'member.changed', projectId: 'p_3' } },
      { kind: 'event', event: { type: 'task.deleted', projectId: 'p_1', id: 't_2' } },
    ]);
    expect(listener.connected).toBe(true);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('keeps going when the change handler throws', async () => {
    const server = await startWsServer();
    server.wss.on('connection', (socket) => {
      socket.send(JSON.stringify({ type: 'project.updated', projectId: 'p_1' }));
      socket.send(JSON.stringify({ type: 'project.updated', projectId: 'p_2' }));
    });
    const seen: Change[] = [];
    const { listener, atLevel } = setup(server.url, {
      onChange: (change) => {
        seen.push(change);
        if (seen.length === 1) throw new Error('handler bug');
      },
    });
    listener.start();
    await waitFor(() => seen.length === 2, 'two changes');
    expect(atLevel(LEVEL.error)).toMatchObject([
      { msg: 'realtime: change handler failed', error: 'Error: handler bug' },
    ]);
    expect(listener.connected).toBe(true);
  });

  it('reconnects after the server drops the socket, after a jittered pause, and says so', async () => {
    const server = await startWsServer();
    const { listener, clock, changes, statuses, atLevel } = setup(server.url);
    listener.start();
    await waitFor(() => listener.connected, 'the first connection');
    expect(changes).toEqual([]);

    server.sockets[0]?.terminate();
    await waitForPause(clock, FIRST_DELAY_MS);
    expect(listener.connected).toBe(false);
    expect(atLevel(LEVEL.warn)).toMatchObject([
      { msg: 'realtime: connection closed', code: 1006, retryInMs: FIRST_DELAY_MS },
    ]);

    await clock.advance(FIRST_DELAY_MS - 1);
    expect(server.sockets).toHaveLength(1);
    await clock.advance(1);
    await waitFor(() => listener.connected && server.sockets.length === 2, 'the reconnection');
    expect(changes).toEqual([{ kind: 'reconnected' }]);
    expect(statuses).toEqual([
      'connecting',
      'connected',
      'disconnected',
      'connecting',
      'connected',
    ]);
  });

  it('doubles the pause for connections that drop at once, and resets it after a stable one', async () => {
    const server = await startWsServer();
    let drop = true;
    server.wss.on('connection', (socket) => {
      if (drop) socket.close(1011, 'going away');
    });
    const { listener, clock, changes } = setup(server.url, { pingIntervalMs: 3_600_000 });
    listener.start();
    for (const pause of [500, 1_000, 2_000]) {
      await waitForPause(clock, pause);
      if (pause === 2_000) drop = false;
      await clock.advance(pause);
    }
    await waitFor(() => listener.connected && server.sockets.length === 4, 'a lasting connection');
    expect(changes.filter((change) => change.kind === 'reconnected')).toHaveLength(3);

    await clock.advance(DEFAULT_STABLE_CONNECTION_MS);
    server.sockets[3]?.terminate();
    await waitForPause(clock, FIRST_DELAY_MS);
  });

  it('reports a 401 on the upgrade once, as an error line, and retries slowly', async () => {
    let upgrades = 0;
    const server = await startWsServer({
      verifyClient: (_info, callback) => {
        upgrades += 1;
        callback(false, 401, 'Unauthorized');
      },
    });
    const { listener, clock, changes, statuses, atLevel, log } = setup(server.url);
    listener.start();
    await waitForPause(clock, DEFAULT_TOKEN_REFUSED_RETRY_MS);
    await clock.advance(DEFAULT_TOKEN_REFUSED_RETRY_MS);
    await waitFor(() => upgrades === 2, 'the second attempt');
    await waitForPause(clock, DEFAULT_TOKEN_REFUSED_RETRY_MS);

    expect(atLevel(LEVEL.error)).toMatchObject([
      {
        msg: 'realtime: HTTP 401 unauthorized: the token was refused on the upgrade',
        retryInMs: DEFAULT_TOKEN_REFUSED_RETRY_MS,
      },
    ]);
    expect(atLevel(LEVEL.debug).filter((line) => line.repeats === 1)).toHaveLength(1);
    expect(statuses).toEqual(['connecting', 'disconnected', 'connecting', 'disconnected']);
    expect(changes).toEqual([]);
    expect(log.text()).not.toContain(TOKEN);

    await listener.stop(); // in the middle of the pause: no clock advance needed
    expect(clock.pendingSleeps).toBe(0);
  });

  it('never follows a redirect', async () => {
    const target = await startWsServer();
    const redirecting = await startRawServer({
      status: 302,
      headers: { Location: target.url.href },
    });
    const { listener, clock, atLevel } = setup(redirecting.url);
    listener.start();
    await waitForPause(clock, FIRST_DELAY_MS);
    expect(atLevel(LEVEL.warn)).toMatchObject([
      { msg: 'realtime: HTTP 302: redirects are not followed' },
    ]);
    expect(redirecting.upgrades).toBe(1);
    expect(target.sockets).toHaveLength(0);
  });

  it('abandons an upgrade that gets no answer within the handshake timeout', async () => {
    const silent = await startRawServer({});
    const { listener, clock, atLevel } = setup(silent.url);
    listener.start();
    await waitFor(() => silent.upgrades === 1, 'the upgrade request');
    await clock.advance(DEFAULT_HANDSHAKE_TIMEOUT_MS);
    await waitForPause(clock, FIRST_DELAY_MS);
    expect(atLevel(LEVEL.warn)).toMatchObject([
      { msg: `realtime: no upgrade within ${DEFAULT_HANDSHAKE_TIMEOUT_MS} ms` },
    ]);
  });

  it('stays connected while pings are answered', async () => {
    const server = await startWsServer();
    server.wss.on('connection', (socket) => {
      // Sent after the automatic pong, so once the listener sees it the pong has arrived too.
      socket.on('ping', () => socket.send('pong sent'));
    });
    const { listener, clock, changes } = setup(server.url, {
      pingIntervalMs: 1_000,
      pongTimeoutMs: 500,
    });
    listener.start();
    await waitFor(() => listener.connected, 'the connection');
    for (let round = 1; round <= 2; round += 1) {
      await clock.advance(1_000);
      await waitFor(() => changes.length === round, `pong ${round}`);
      await clock.advance(500);
    }
    expect(listener.connected).toBe(true);
    expect(server.sockets).toHaveLength(1);
  });

  it('drops a connection whose ping goes unanswered and reconnects', async () => {
    const server = await startWsServer({ autoPong: false });
    const { listener, clock, changes, atLevel } = setup(server.url, {
      pingIntervalMs: 1_000,
      pongTimeoutMs: 500,
    });
    listener.start();
    await waitFor(() => listener.connected, 'the connection');
    await clock.advance(1_000);
    await clock.advance(500);
    await waitForPause(clock, FIRST_DELAY_MS);
    expect(atLevel(LEVEL.warn)).toMatchObject([
      { msg: 'realtime: no pong within 500 ms; connection dropped' },
    ]);
    await clock.advance(FIRST_DELAY_MS);
    await waitFor(() => listener.connected && server.sockets.length === 2, 'the reconnection');
    expect(changes).toEqual([{ kind: 'reconnected' }]);
  });

  it('stop() closes the socket politely and ends the loop', async () => {
    const server = await startWsServer();
    const { listener, clock, statuses } = setup(server.url);
    listener.start();
    await waitFor(() => listener.connected, 'the connection');
    const started = Date.now();
    await listener.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(listener.connected).toBe(false);
    expect(statuses.at(-1)).toBe('disconnected');
    expect(clock.pendingSleeps).toBe(0);
    await waitFor(() => server.closeCodes.length === 1, 'the close at the server');
    expect(server.closeCodes).toEqual([1000]);
  });

  it('stop() drops a socket whose server never completes the close, after the close timeout', async () => {
    const silent = await startRawServer({ upgrade: true });
    const { listener, clock } = setup(silent.url, { closeTimeoutMs: 1_000 });
    listener.start();
    await waitFor(() => listener.connected, 'the connection');
    let stopped = false;
    const stopping = listener.stop().then(() => {
      stopped = true;
    });
    await flushMicrotasks();
    expect(stopped).toBe(false);
    await clock.advance(1_000);
    await stopping;
    expect(stopped).toBe(true);
    expect(listener.connected).toBe(false);
  });

  it('stops when its signal aborts, refuses a second start, and can start again', async () => {
    const server = await startWsServer();
    const { listener, changes } = setup(server.url);
    const controller = new AbortController();
    listener.start(controller.signal);
    expect(() => listener.start()).toThrow(ProjmirrorError);
    await waitFor(() => listener.connected, 'the connection');
    controller.abort();
    await waitFor(() => server.closeCodes.length === 1, 'the close at the server');
    expect(server.closeCodes).toEqual([1000]);
    await listener.stop();

    listener.start();
    await waitFor(() => listener.connected && server.sockets.length === 2, 'a fresh start');
    expect(changes).toEqual([]);
  });

  it('refuses a URL that is not ws: or wss:, and an unreadable CA file', () => {
    const base = {
      token: TOKEN,
      clock: new FakeClock(),
      logger: captureLogger().logger,
      onChange: () => undefined,
    };
    expect(() => new RealtimeListener({ ...base, url: new URL('http://127.0.0.1/v1') })).toThrow(
      UsageError,
    );
    expect(
      () =>
        new RealtimeListener({
          ...base,
          url: new URL('wss://127.0.0.1/v1/realtime'),
          caFile: '/nonexistent/ca.pem',
        }),
    ).toThrow('cannot read CA file /nonexistent/ca.pem: ENOENT');
  });
});
