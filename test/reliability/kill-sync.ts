/**
 * The sync half of kill.test.ts: kill -9 during `projmirror sync`, ten times, at seeded random points: the child is killed a
 * random 0-25 ms after the service receives its k-th request (k random), so kills land while a
 * request is in flight, while a page is being written and while a pass commits. Between rounds
 * the service changes (tasks created, deleted, renamed). After every kill the file passes
 * `PRAGMA integrity_check`, and every project whose baseline is complete holds exactly the tasks
 * the service had at some round (a pass commits all of a project or nothing). A last sync,
 * unkilled (in this process, to save a child's start-up), converges.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import {
  checkIntegrity,
  differences,
  inProcess,
  mirroredTaskLines,
  remoteArgs,
  seededRandom,
  spawnCli,
  taskLines,
  type CliChild,
} from './helpers.js';

const TOKEN = 'glt_test_reliability_kill_sync';
const ROUNDS = 10;
const PROJECTS = ['p_1', 'p_2'];
/**
 * Requests of one sync: list projects, then per project 3 task pages and 3 lists. The kill comes
 * after one of the first 12, so that every round is killed before the sync can finish.
 */
const REQUESTS_PER_SYNC = 1 + PROJECTS.length * 6;
const KILL_BEFORE_REQUEST = REQUESTS_PER_SYNC - 1;
const KILL_DELAY_MAX_MS = 25;
const CHURN = 15;

/** Deletes, creates and renames `CHURN` tasks of each project on the service. */
function churn(sim: Simulator, round: number, random: () => number): void {
  for (const projectId of PROJECTS) {
    for (let i = 0; i < CHURN; i += 1) {
      const tasks = sim.service.listTasks(projectId);
      sim.service.deleteTask(tasks[Math.floor(random() * tasks.length)]!.id);
      sim.service.createTask(projectId, { name: `round ${round} new ${i}` });
      const renamed = tasks[Math.floor(random() * tasks.length)]!;
      if (sim.service.listTasks(projectId).some((task) => task.id === renamed.id)) {
        sim.service.updateTask(renamed.id, { name: `round ${round} renamed ${i}` });
      }
    }
  }
}

/** Projects whose first full pass (the baseline) has committed. */
function baselined(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(`SELECT project_id FROM sync_state WHERE backfill = 'done'`)
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

/** Runs the ten killed syncs and the last one, asserting as it goes; returns the kills made. */
export async function killSyncRounds(): Promise<number> {
  const sim = await startTestSimulator({
    projects: PROJECTS.length,
    tasks: 1_200,
    limits: false,
    tokens: [TOKEN],
  });
  const file = join(tempDir(), 'mirror.sqlite');
  const args = ['sync', ...remoteArgs(sim, file)];
  const random = seededRandom(6_001);
  const states = new Map(PROJECTS.map((id) => [id, new Set<string>()]));
  let running: CliChild | undefined;
  let arrivals = 0;
  let killAt = Number.POSITIVE_INFINITY;
  sim.faults.delay({
    ms: 0,
    count: Number.POSITIVE_INFINITY,
    when: () => {
      arrivals += 1;
      if (arrivals === killAt) {
        const child = running?.child;
        setTimeout(() => child?.kill('SIGKILL'), Math.floor(random() * KILL_DELAY_MAX_MS));
      }
      return false;
    },
  });

  let killed = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    if (round > 0) churn(sim, round, random);
    for (const id of PROJECTS) {
      states.get(id)!.add(taskLines(sim.service.listTasks(id)).join('\n'));
    }
    arrivals = 0;
    killAt = 1 + Math.floor(random() * KILL_BEFORE_REQUEST);
    running = spawnCli(args);
    const exit = await running.exit;
    if (exit.signal === 'SIGKILL') killed += 1;
    else expect(exit).toMatchObject({ code: 0, stderr: '' });

    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    const db = new Database(file, { readonly: true });
    try {
      for (const projectId of baselined(file)) {
        const held = mirroredTaskLines(db, projectId).join('\n');
        expect(states.get(projectId)!.has(held), `round ${round}, ${projectId}`).toBe(true);
      }
    } finally {
      db.close();
    }
  }
  expect(killed).toBeGreaterThanOrEqual(ROUNDS - 2);

  expect((await inProcess('sync', sim, file)).ok).toBe(true);
  expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  const db = new Database(file, { readonly: true });
  try {
    expect(differences(db, sim)).toEqual([]);
  } finally {
    db.close();
  }
  return killed;
}
