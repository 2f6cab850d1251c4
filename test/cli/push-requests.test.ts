/**
 * What `push` says it sent, checked against the service: the summary's requests are the HTTP
 * requests the simulator answered (re-reads, writes, and every retry of either), and the dry
 * run's cost is what a push without faults then sends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { runCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { syncWithCli } from '../fixtures/synced.js';

const TOKEN = 'glt_test_push_requests_0123456789';

/** A mirror synced from a new simulator, and the flags that push to it. */
async function synced(): Promise<{ sim: Simulator; flags: string[] }> {
  const sim = await startTestSimulator({ projects: 1, tasks: 3, tokens: [TOKEN] });
  const { dir, db, sync } = await syncWithCli(sim, TOKEN);
  expect(sync.code).toBe(0);
  const flags = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', db];
  return { sim, flags };
}

/** Queues an update of t_1 (re-read, then written) and a create (written). */
async function enqueueTwo(flags: string[]): Promise<void> {
  const edits = [
    ['task.update', '--target', 't_1', '--body', '{"progress":50}'],
    [
      'task.create',
      '--body',
      '{"name":"Pour","startDate":"2026-05-01","endDate":"2026-05-03","status":"NotStarted"}',
    ],
  ];
  for (const [op, ...rest] of edits) {
    const queued = await runCli(['enqueue', op!, '--project', 'p_1', ...rest, ...flags]);
    expect(queued.code, queued.stderr).toBe(0);
  }
}

/** The requests the simulator answered, the realtime socket aside. */
function served(sim: Simulator): number {
  return sim.requestLog.count({ where: (entry) => entry.route !== 'realtime' });
}

interface PushJson {
  requests: number;
  sent: number;
  rereads: number;
  done: number;
}

describe('push: requests counted as the service counts them', () => {
  it('counts every retry: a dropped re-read, a 500 and a 429 on writes, a create committed then dropped', async () => {
    const { sim, flags } = await synced();
    await enqueueTwo(flags);
    sim.faults.failNext({ route: 'getTask', kind: 'drop' });
    sim.faults.failNext({ route: 'updateTask', kind: 'status', status: 500 });
    sim.faults.failNext({
      route: 'createTask',
      kind: 'status',
      status: 429,
      code: 'rate_limited',
      headers: { 'Retry-After': '1' },
    });
    sim.faults.failNext({ route: 'createTask', kind: 'commitThenDrop' });
    sim.requestLog.clear();

    const push = await runCli(['push', '--json', '--log-level', 'silent', ...flags]);
    expect(push.stderr).toBe('');
    expect(push.code).toBe(0);
    const summary = JSON.parse(push.stdout) as PushJson;
    expect(summary.done).toBe(2);
    // Each fault was met, and each cost a request more than the calls made.
    // The update: re-read (dropped, sent again), written (500); re-read and written again. The
    // create: 429 (waited out), committed then dropped, sent again with its key.
    expect(sim.requestLog.count({ route: 'getTask' })).toBe(3);
    expect(sim.requestLog.count({ route: 'updateTask' })).toBe(2);
    expect(sim.requestLog.count({ route: 'createTask' })).toBe(3);
    expect(sim.requestLog.count({ status: 500 })).toBe(1);
    expect(sim.requestLog.count({ status: 429 })).toBe(1);
    expect(served(sim)).toBe(8);
    expect(summary.requests).toBe(served(sim));
    expect(summary.requests).toBeGreaterThan(summary.sent + summary.rereads);
  }, 60_000);

  it('says "N requests" in the summary line, which the dry run foresaw', async () => {
    const { sim, flags } = await synced();
    await enqueueTwo(flags);
    sim.requestLog.clear();
    const dry = await runCli(['push', '--dry-run', '--json', '--log-level', 'silent', ...flags]);
    expect(dry.code, dry.stderr).toBe(0);
    const foreseen = (JSON.parse(dry.stdout) as { requests: number }).requests;
    expect(served(sim)).toBe(0);

    const push = await runCli(['push', '--log-level', 'silent', ...flags]);
    expect(push.code, push.stderr).toBe(0);
    // The update's re-read and write, the create's write.
    expect(served(sim)).toBe(3);
    expect(foreseen).toBe(3);
    expect(push.stdout).toMatch(/^push: 2 done, 0 failed, 0 left pending; 3 requests; /m);
  }, 60_000);
});
