import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { connectRealtime } from './helpers.js';

describe('HTTPS', () => {
  test('serves https with a self-signed certificate whose CA is written to caFile', async () => {
    const sim = await startTestSimulator({ tls: true, projects: 1 });
    expect(sim.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(sim.realtimeUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/v1\/realtime$/);
    const ca = readFileSync(sim.caFile ?? '', 'utf8');
    expect(ca).toContain('BEGIN CERTIFICATE');
    const dispatcher = new Agent({ connect: { ca } });
    const response = await undiciFetch(`${sim.baseUrl}/projects`, {
      dispatcher,
      headers: { authorization: `Bearer ${sim.token}` },
    });
    expect(response.status).toBe(200);
    await dispatcher.close();
    await expect(undiciFetch(`${sim.baseUrl}/health`)).rejects.toThrow(); // untrusted without the CA
    const events = await connectRealtime(sim, sim.token, { ca });
    sim.service.createTask('p_1');
    await events.waitFor((message) => message['type'] === 'task.created');
  });

  test('close removes the temporary CA file', async () => {
    const sim = await startSimulator({ tls: true, projects: 1 });
    const file = sim.caFile ?? '';
    expect(existsSync(file)).toBe(true);
    await sim.close();
    expect(existsSync(file)).toBe(false);
  });
});
