/** The realtime channel against a hostile service: huge, deep and token-echoing messages. */
import { describe, expect, it } from 'vitest';
import { decodeMessage, DEFAULT_MAX_MESSAGE_BYTES } from '../../src/realtime/index.js';
import { startListener } from './start-listener.js';
import { startWsServer, waitFor, waitForPause } from './servers.js';

const TOKEN = 'glt_test_realtime_bounds_7a2e';
const FIRST_DELAY_MS = 500;

describe('realtime bounds', () => {
  it('closes the connection on a message over 1 MiB (1009), keeps nothing of it, reconnects', async () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(1024 * 1024);
    const server = await startWsServer();
    const huge = JSON.stringify({
      type: 'task.updated',
      projectId: 'p_1',
      id: 't_1',
      data: { id: 't_1', name: 'x'.repeat(15 * 1024 * 1024) },
    });
    server.wss.on('connection', (socket) => {
      if (server.sockets.length === 1) socket.send(huge);
    });
    const { listener, clock, changes } = startListener(server.url, TOKEN, undefined);
    await waitFor(() => server.closeCodes.length === 1, 'the close');
    expect(server.closeCodes).toEqual([1009]);
    await waitForPause(clock, FIRST_DELAY_MS);
    await clock.advance(FIRST_DELAY_MS);
    await waitFor(() => listener.connected && server.sockets.length === 2, 'the reconnection');
    expect(changes).toEqual([{ kind: 'reconnected' }]);
  });

  it('takes a message nested past the bound as a hint, without parsing it', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const text = `{"type":"task.updated","projectId":"p_1","id":"t_1","data":{"id":"t_1","x":${deep}}}`;
    expect(decodeMessage(text)).toEqual({
      kind: 'hint',
      reason: 'message nests deeper than 33 levels',
    });
  });

  it('takes a message echoing the token as a hint: none of its data is kept or logged', async () => {
    const server = await startWsServer();
    server.wss.on('connection', (socket) => {
      socket.send(
        JSON.stringify({
          type: 'task.updated',
          projectId: 'p_1',
          id: 't_1',
          data: { id: 't_1', name: `Bearer ${TOKEN}` },
        }),
      );
    });
    const { changes, log } = startListener(server.url, TOKEN, undefined);
    await waitFor(() => changes.length === 1, 'the change');
    expect(changes).toEqual([{ kind: 'hint', reason: 'message holds the token; ignored' }]);
    expect(log.text()).not.toContain(TOKEN);
  });
});
