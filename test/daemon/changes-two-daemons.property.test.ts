/**
 * Issue 37, "Done when", with two daemons: two `projmirror run` processes share one PostgreSQL
 * mirror (each holds some projects by lease, so both commit at once), while random service
 * changes (seeded, shrinking) arrive over realtime and passes. A consumer polls the feed all the
 * while from its own connection and applies it (`convergence/feed.ts`); once the mirror equals
 * the service, replaying what it read onto its starting copy gives exactly the mirror, and it
 * read every `seq` once, in increasing order. A case costs two daemon processes (seconds), so
 * few run; a failure is shrunk (within the test's timeout) like the single-daemon properties of
 * `changes.property.test.ts`. Environment: `PROJMIRROR_PROPERTY_RUNS` (default 3),
 * `PROJMIRROR_PROPERTY_SEED`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { connectionOf } from '../../src/store/handle.js';
import { openMirror } from '../../src/store/open.js';
import { sharedRunArgs, startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { mirrorDifferences } from './convergence/compare.js';
import { Consumer } from './convergence/feed.js';

const RUNS = Number(process.env['PROJMIRROR_PROPERTY_RUNS'] ?? 3);
const SEED = Number(process.env['PROJMIRROR_PROPERTY_SEED'] ?? 20_261_128);
const LEASE_MS = 3_000;
const PROJECTS = 4;
const TOKEN = 'glt_test_feed_two_daemons';
/** How long a case waits for the daemons to hold every project and to converge (real time). */
const WAIT_MS = 30_000;

let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

type Change =
  | { kind: 'rename'; project: number; task: number }
  | { kind: 'progress'; project: number; task: number; value: number }
  | { kind: 'create'; project: number }
  | { kind: 'delete'; project: number; task: number }
  | { kind: 'assign'; project: number; task: number; members: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    kind: fc.constant('rename' as const),
    project: fc.nat(PROJECTS - 1),
    task: fc.nat(20),
  }),
  fc.record({
    kind: fc.constant('progress' as const),
    project: fc.nat(PROJECTS - 1),
    task: fc.nat(20),
    value: fc.nat(100),
  }),
  fc.record({ kind: fc.constant('create' as const), project: fc.nat(PROJECTS - 1) }),
  fc.record({
    kind: fc.constant('delete' as const),
    project: fc.nat(PROJECTS - 1),
    task: fc.nat(20),
  }),
  fc.record({
    kind: fc.constant('assign' as const),
    project: fc.nat(PROJECTS - 1),
    task: fc.nat(20),
    members: fc.nat(3),
  }),
);

function apply(sim: Simulator, c: Change, n: number): void {
  const project = sim.service.listProjects()[c.project];
  if (project === undefined) return;
  if (c.kind === 'create') {
    sim.service.createTask(project.id, { name: `created ${n}` });
    return;
  }
  const tasks = sim.service.listTasks(project.id);
  const task = tasks[c.task % Math.max(1, tasks.length)];
  if (task === undefined) return;
  if (c.kind === 'rename') sim.service.updateTask(task.id, { name: `renamed ${n}` });
  if (c.kind === 'progress') sim.service.updateTask(task.id, { progress: c.value });
  if (c.kind === 'delete') sim.service.deleteTask(task.id);
  if (c.kind === 'assign') {
    const members = sim.service.listMembers(project.id).slice(0, c.members);
    sim.service.setAssignees(
      task.id,
      members.map((m) => m.id),
    );
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the change feed with two daemons on one PostgreSQL mirror', () => {
  it(
    'a consumer polling all along replays it onto its copy to exactly the mirror, every seq once',
    async () => {
      let read = 0;
      const property = fc.asyncProperty(
        fc.array(fc.tuple(change, fc.nat(300)), { minLength: 4, maxLength: 16 }),
        async (changes) => {
          const url = await server.database();
          const sim = await startTestSimulator({ projects: PROJECTS, tasks: 8, tokens: [TOKEN] });
          const dir = tempDir();
          writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
          const args = sharedRunArgs(url, sim, join(dir, 'token'), LEASE_MS);
          const daemons = [startCli(args, { cwd: dir }), startCli(args, { cwd: dir })];
          const handle = await (async () => {
            for (;;) {
              try {
                const opened = await openMirror({ db: url }, 'read');
                await connectionOf(opened).prepare('SELECT 1 FROM changes LIMIT 1').all();
                return opened;
              } catch {
                await new Promise((resolve) => setTimeout(resolve, 100));
              }
            }
          })();
          const db = connectionOf(handle);
          try {
            await until('two daemons holding the projects', async () => {
              const holders = (await db
                .prepare(
                  'SELECT count(DISTINCT daemon_id) FROM project_leases WHERE expires_at > now()',
                )
                .pluck()
                .get()) as number;
              return Number(holders) === 2;
            });
            const consumer = await Consumer.start(db, 'consumer');
            let polling = true;
            const poll = (async () => {
              while (polling) {
                read += await consumer.read(db, 7);
                await new Promise((resolve) => setTimeout(resolve, 20));
              }
            })();
            for (const [i, [c, pause]] of changes.entries()) {
              apply(sim, c, i);
              await new Promise((resolve) => setTimeout(resolve, pause));
            }
            await until(
              'the mirror equal to the service',
              async () => (await mirrorDifferences(handle, sim.service)).length === 0,
            );
            polling = false;
            await poll;
            const problems = await consumer.finish(db);
            expect(problems).toEqual([]);
          } finally {
            handle.close();
            for (const daemon of daemons) daemon.child.kill('SIGTERM');
            await Promise.all(daemons.map((daemon) => daemon.ended));
            await sim.close();
          }
        },
      );
      await fc.assert(property, { seed: SEED, numRuns: RUNS });
      console.log(`two daemons: ${RUNS} cases, ${read} changes read while they wrote`);
      expect(read).toBeGreaterThan(0);
    },
    RUNS * 60_000,
  );
});
