import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:https';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError, UsageError } from '../../src/domain/index.js';
import { clientOf, failure, standIn, TOKEN } from './stand-in.js';

/** A CA and a server certificate for 127.0.0.1 signed by it. */
async function certificates(dir: string) {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'projmirror test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  return { caFile, key: server.private, cert: server.cert };
}

describe('TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-tls-'));
  let caFile = '';
  let key = '';
  let cert = '';
  beforeAll(async () => {
    ({ caFile, key, cert } = await certificates(dir));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trusts a server signed by the extra CA file', async () => {
    const stand = await standIn(
      () => ({ status: 200, body: [{ id: 'p_1' }] }),
      createServer({ key, cert }),
    );
    expect(stand.baseUrl).toMatch(/^https:/);
    const { remote } = clientOf(stand, { caFile });
    expect(await remote.listProjects()).toEqual([{ id: 'p_1' }]);
    expect(stand.seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  });

  it('refuses the same server without the CA, with one clear TLS line and no retry', async () => {
    const stand = await standIn(() => ({ status: 200, body: [] }), createServer({ key, cert }));
    const { remote, clock } = clientOf(stand);
    const error = await failure(remote.listProjects());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toMatch(
      /^GET listProjects: TLS verification of 127\.0\.0\.1:\d+ failed: .+ \([A-Z_]+\); trust its CA with --ca-file$/,
    );
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(TOKEN);
    expect(clock.pendingSleeps).toBe(0);
    expect(stand.seen).toHaveLength(0);
  });

  it('names a CA file that cannot be read or holds no certificate', () => {
    const empty = join(dir, 'empty.pem');
    writeFileSync(empty, 'nothing here');
    const stand = { baseUrl: 'https://127.0.0.1:1/v1' };
    expect(() => clientOf(stand, { caFile: '/nonexistent/ca.pem' })).toThrow(
      new UsageError('cannot read CA file /nonexistent/ca.pem: ENOENT'),
    );
    expect(() => clientOf(stand, { caFile: empty })).toThrow(/holds no PEM certificate/);
  });
});
