import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { RemoteStatusError } from '../../src/domain/index.js';
import { type ResponseMetric } from '../../src/remote/index.js';
import { clientOf, drive, failure, standIn, TOKEN } from './stand-in.js';

describe('health', () => {
  it('bypasses the gate: answers during a pause and is never counted', async () => {
    const stand = await standIn(() => ({ status: 200, body: { status: 'ok' } }));
    const { remote, gate } = clientOf(stand);
    gate.observe({ status: 429, retryAfterMs: 3_600_000 });
    const health = await remote.health();
    expect(health).toEqual({ status: 200, ms: 0, body: { status: 'ok' } });
    expect(stand.seen[0]?.url).toBe('/v1/health');
    expect(gate.acquired).toEqual([]);
    expect(gate.observed).toHaveLength(1);
    expect(gate.inner.snapshot().sentTotal).toBe(0);
  });

  it('throws on a non-2xx health answer', async () => {
    const stand = await standIn(() => ({ status: 503, body: 'down' }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.health());
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error.message).toBe('GET health: HTTP 503');
  });
});

describe('cancellation', () => {
  it('rejects with the abort reason while waiting at the gate, sending nothing', async () => {
    const stand = await standIn(() => ({ status: 200, body: [] }));
    const { remote, gate, clock } = clientOf(stand);
    gate.observe({ status: 429, retryAfterMs: 60_000 });
    const controller = new AbortController();
    const pending = remote.listProjects({ signal: controller.signal });
    await vi.waitFor(() => expect(clock.pendingSleeps).toBe(1));
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(stand.seen).toHaveLength(0);
  });

  it('rejects with the abort reason while a response is awaited', async () => {
    const stand = await standIn(() => undefined);
    const { remote } = clientOf(stand);
    const controller = new AbortController();
    const pending = remote.listProjects({ signal: controller.signal });
    await vi.waitFor(() => expect(stand.seen).toHaveLength(1));
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
  });
});

describe('metrics and logs', () => {
  it('reports each response (0 for no response) and logs retries without the token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const metrics: ResponseMetric[] = [];
    const stand = await standIn((seen, index, res) => {
      if (index === 0) {
        res.socket?.destroy();
        return undefined;
      }
      if (index === 1) {
        return { status: 500, body: { code: 'x', message: `bad ${seen.headers.authorization}` } };
      }
      return { status: 200, body: [] };
    });
    const { remote, clock } = clientOf(stand, {
      logger: pino({ level: 'debug' }, sink),
      onResponse: (metric) => metrics.push(metric),
    });
    await drive(remote.listMembers('p_1'), clock);
    expect(metrics).toEqual([
      { route: 'listMembers', status: 0, ms: 0 },
      { route: 'listMembers', status: 500, ms: 0, code: 'x' },
      { route: 'listMembers', status: 200, ms: 0 },
    ]);
    const text = lines.join('');
    expect(text).toMatch(/"msg":"retrying"/);
    expect(text).toContain('[token]');
    expect(text).not.toContain(TOKEN);
  });
});
