import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/db.js';
import { LEVEL } from '../fixtures/capture-log.js';
import { startListener } from './start-listener.js';
import { startWsServer, waitFor } from './servers.js';

const TOKEN = 'glt_test_realtime_tls_a41e';

let pems: { key: string; cert: string };

beforeAll(async () => {
  const generated = await generate([{ name: 'commonName', value: 'projmirror test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  pems = { key: generated.private, cert: generated.cert };
});

const listen = (url: URL, caFile: string | undefined) => startListener(url, TOKEN, caFile);

describe('RealtimeListener over TLS', () => {
  it('trusts a self-signed service through the CA file and receives its events', async () => {
    const server = await startWsServer({}, pems);
    server.wss.on('connection', (socket) =>
      socket.send(JSON.stringify({ type: 'resource.changed', projectId: 'p_1', id: 'r_1' })),
    );
    const caFile = join(tempDir(), 'ca.pem');
    writeFileSync(caFile, pems.cert);
    const { listener, changes, log } = listen(server.url, caFile);
    await waitFor(() => changes.length === 1, 'the event');
    expect(listener.connected).toBe(true);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(changes).toEqual([
      { kind: 'event', event: { type: 'resource.changed', projectId: 'p_1', id: 'r_1' } },
    ]);
    expect(log.text()).not.toContain(TOKEN);
  });

  it('refuses the same service without the CA file, with one clear line, and keeps retrying', async () => {
    const server = await startWsServer({}, pems);
    const { listener, clock, log } = listen(server.url, undefined);
    await waitFor(
      () => clock.pendingSleeps === 1 && clock.nextWakeAt === clock.now() + 500,
      'the pause after the failure',
    );
    const warnings = log.lines.filter((line) => line.level === LEVEL.warn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(
      /^realtime: TLS certificate not trusted \((SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT): .+\); give its CA with --ca-file$/,
    );
    expect(listener.connected).toBe(false);
    expect(server.sockets).toHaveLength(0);
    expect(log.text()).not.toContain(TOKEN);
  });
});
