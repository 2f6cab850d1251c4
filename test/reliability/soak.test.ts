/**
 * A soak: the daemon (realtime, polls every few hundred ms) runs for 6 s while the service changes
 * every 50 ms and about 10% of its requests fail (500s, dropped sockets, truncated JSON bodies, and
 * 300 ms delays, 2.5% each); the realtime socket is dropped and event data switched off and on
 * every 1.5 s. The daemon must stay up, and once the faults stop the mirror must converge to the
 * service without any help, with an intact file.
 */
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { startTestDaemon } from '../daemon/fixtures.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { differences, seededRandom, waitUntil } from './helpers.js';

const TOKEN = 'glt_test_reliability_soak';
const SOAK_MS = 6_000;
const CHANGE_EVERY_MS = 50;
const DISTURB_EVERY_MS = 1_500;
const FAULT_SHARE_EACH = 0.025;
const CONVERGE_WITHIN_MS = 20_000;
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Arms the four kinds of faults, each on a seeded 2.5% of requests. */
function armFaults(sim: Simulator, random: () => number): void {
  const sometimes = () => random() < FAULT_SHARE_EACH;
  const every = { count: Number.POSITIVE_INFINITY, when: sometimes };
  sim.faults.failNext({ kind: 'status', status: 500, ...every });
  sim.faults.failNext({ kind: 'drop', ...every });
  sim.faults.failNext({ kind: 'malformed', ...every });
  sim.faults.delay({ ms: 300, ...every });
}

/** One change on the service: a rename, a creation, a deletion, or a resource change. */
function changeSomething(sim: Simulator, step: number, random: () => number): void {
  const projectId = random() < 0.5 ? 'p_1' : 'p_2';
  const tasks = sim.service.listTasks(projectId);
  const task = tasks[Math.floor(random() * tasks.length)]!;
  switch (step % 4) {
    case 0:
      sim.service.updateTask(task.id, { name: `soaked ${step}`, progress: step % 101 });
      break;
    case 1:
      sim.service.createTask(projectId, { name: `created in soak ${step}` });
      break;
    case 2:
      sim.service.deleteTask(task.id);
      break;
    default:
      sim.service.createResource(projectId, { name: `resource ${step}` });
  }
}

describe('soak with injected faults', () => {
  it('stays up through 10% faults and converges once they stop', async () => {
    const sim = await startTestSimulator({
      projects: 2,
      tasks: [700, 300],
      quota: 10_000_000,
      burst: 1_000_000,
      ipLimit: 1_000_000,
      tokens: [TOKEN],
    });
    const { daemon, db } = await startTestDaemon(sim, {
      engine: { governor: { burstLimit: UNLIMITED, ipLimit: UNLIMITED } },
      daemon: { minPollIntervalMs: 200, reconcileIntervalMs: 300, coalesceMs: 100 },
    });
    expect(await waitUntil(() => daemon.connected, 5_000)).toBe(true);
    const random = seededRandom(6_004);
    armFaults(sim, random);

    const started = Date.now();
    let step = 0;
    let nextDisturbance = started + DISTURB_EVERY_MS;
    while (Date.now() - started < SOAK_MS) {
      changeSomething(sim, step, random);
      step += 1;
      if (Date.now() >= nextDisturbance) {
        sim.realtime.dropAll();
        sim.realtime.includeData = !sim.realtime.includeData;
        nextDisturbance += DISTURB_EVERY_MS;
      }
      await new Promise((resolve) => setTimeout(resolve, CHANGE_EVERY_MS));
    }
    sim.faults.clear();
    sim.realtime.includeData = true;
    const faulted = sim.requestLog.count({ where: (entry) => entry.fault !== undefined });
    const answered = sim.requestLog.count({ where: (entry) => entry.route !== 'realtime' });

    const converged = await waitUntil(() => differences(db, sim).length === 0, CONVERGE_WITHIN_MS);
    expect(converged, differences(db, sim).join(', ')).toBe(true);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(faulted).toBeGreaterThan(answered * 0.04);
    expect(step).toBeGreaterThan(50);

    // Still up: connected, polling, and applying what happens next.
    expect(await waitUntil(() => daemon.connected, 5_000)).toBe(true);
    const polled = sim.requestLog.count({ route: 'getProject' });
    const task = sim.service.listTasks('p_1')[0]!;
    sim.service.updateTask(task.id, { name: 'after the soak' });
    const landed = () =>
      db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(task.id) === 'after the soak';
    expect(await waitUntil(landed, 3_000)).toBe(true);
    expect(
      await waitUntil(() => sim.requestLog.count({ route: 'getProject' }) > polled, 3_000),
    ).toBe(true);
  }, 45_000);
});
