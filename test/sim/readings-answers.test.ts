import { describe, expect, test } from 'vitest';
import { UsageError, type Task } from '../../src/domain/index.js';
import {
  ALTERNATE_READINGS,
  DEFAULT_READINGS,
  READING_PROFILES,
  resolveSimulatorOptions,
  type SimReadings,
} from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode } from './helpers.js';

const KEY = { 'idempotency-key': 'key-json' };
const COMPACT =
  '{"name":"Pour","startDate":"2026-03-01","endDate":"2026-03-05","status":"NotStarted"}';
const REWRITTEN = `{
  "status": "NotStarted", "endDate": "2026-03-05",
  "startDate": "2026-03-01",   "name": "Pour"
}`;

describe('readings: how idempotency bodies are compared', () => {
  test("idempotency 'json': a body equal as JSON (key order, whitespace) replays", async () => {
    const sim = await startTestSimulator({
      projects: 1,
      tasks: 0,
      readings: { idempotency: 'json' },
    });
    const api = client(sim);
    const first = await api.send('POST', '/projects/p_1/tasks', COMPACT, KEY);
    expect(first.status).toBe(201);
    const replay = await api.send('POST', '/projects/p_1/tasks', REWRITTEN, KEY);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await first.json());
    expect(sim.service.taskCount('p_1')).toBe(1);
    const other = await api.send(
      'POST',
      '/projects/p_1/tasks',
      COMPACT.replace('Pour', 'Dig'),
      KEY,
    );
    expect(other.status).toBe(409);
    expect(await errorCode(other)).toBe('idempotency_conflict');
  });

  test("idempotency 'bytes': the same JSON written differently answers 409 idempotency_conflict", async () => {
    const sim = await startTestSimulator({
      projects: 1,
      tasks: 0,
      readings: { idempotency: 'bytes' },
    });
    const api = client(sim);
    expect((await api.send('POST', '/projects/p_1/tasks', COMPACT, KEY)).status).toBe(201);
    const rewritten = await api.send('POST', '/projects/p_1/tasks', REWRITTEN, KEY);
    expect(rewritten.status).toBe(409);
    expect(await errorCode(rewritten)).toBe('idempotency_conflict');
    const same = await api.send('POST', '/projects/p_1/tasks', COMPACT, KEY);
    expect(same.status).toBe(201);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.service.taskCount('p_1')).toBe(1);
  });
});

describe("readings: a hidden project's task, resource or dependency", () => {
  /** The answers a token of p_2 gets for p_1's records, and for records that do not exist. */
  async function hiddenAnswers(hiddenRecord: 403 | 404) {
    const sim = await startTestSimulator({ projects: 2, tasks: 3, readings: { hiddenRecord } });
    const api = client(sim, sim.service.createToken({ projects: ['p_2'] }));
    const task = sim.service.listTasks('p_1')[0]?.id;
    const resource = sim.service.listResources('p_1')[0]?.id;
    const dependency = sim.service.listDependencies('p_1')[0]?.id;
    const answers = [
      await api.get(`/tasks/${task}`),
      await api.send('PATCH', `/tasks/${task}`, { name: 'X' }),
      await api.send('PATCH', `/resources/${resource}`, { name: 'X' }),
      await api.send('DELETE', `/resources/${resource}`),
      await api.send('DELETE', `/dependencies/${dependency}`),
    ];
    const bodies = await Promise.all(
      answers.map(async (answer) => ({
        status: answer.status,
        ...((await answer.json()) as object),
      })),
    );
    const missing = (await (await api.get('/tasks/t_404')).json()) as { message: string };
    const project = await api.get('/projects/p_1/tasks');
    return { sim, bodies, missing, task, project };
  }

  test('hiddenRecord 403: forbidden', async () => {
    const { sim, bodies, project } = await hiddenAnswers(403);
    expect(bodies.map((body) => [body.status, (body as { code?: string }).code])).toEqual(
      Array(5).fill([403, 'forbidden']),
    );
    expect(project.status).toBe(403);
    expect(sim.service.listDependencies('p_1').length).toBeGreaterThan(0);
  });

  test('hiddenRecord 404: not_found, worded as for a record that does not exist', async () => {
    const { sim, bodies, missing, task, project } = await hiddenAnswers(404);
    expect(bodies.map((body) => [body.status, (body as { code?: string }).code])).toEqual(
      Array(5).fill([404, 'not_found']),
    );
    expect((bodies[0] as { message?: string }).message).toBe(`task ${task} does not exist`);
    expect(missing.message).toBe('task t_404 does not exist');
    expect(project.status).toBe(403); // the project itself stays forbidden
    expect(sim.service.getTask(task ?? '')?.name).not.toBe('X');
    expect(sim.service.listResources('p_1').length).toBeGreaterThan(0);
  });
});

describe('readings: status and progress derivation', () => {
  /** Sends each body to a fresh task of progress `start`; answers [status, progress] per body. */
  async function derived(statusMapping: 'contract' | 'coarse', start: number, bodies: object[]) {
    const sim = await startTestSimulator({ projects: 1, tasks: 0, readings: { statusMapping } });
    const api = client(sim);
    const results: [string, number][] = [];
    for (const body of bodies) {
      const task = sim.service.createTask('p_1', { status: 'InProgress', progress: start });
      const answer = (await (await api.send('PATCH', `/tasks/${task.id}`, body)).json()) as Task;
      results.push([answer.status as string, answer.progress as number]);
    }
    const created = await api.send('POST', '/projects/p_1/tasks', {
      name: 'New',
      startDate: '2026-03-01',
      endDate: '2026-03-02',
      status: 'InProgress',
    });
    const task = (await created.json()) as Task;
    return { results, created: [task.status, task.progress] };
  }

  const PROGRESS = [0, 1, 30, 49, 50, 99, 100].map((progress) => ({ progress }));
  const STATUS = ['NotStarted', 'InProgress', 'Done', 'Blocked'].map((status) => ({ status }));

  test("statusMapping 'contract': 0 NotStarted, 1-99 InProgress, 100 Done", async () => {
    const byProgress = await derived('contract', 80, PROGRESS);
    expect(byProgress.results.map(([status]) => status)).toEqual([
      'NotStarted',
      'InProgress',
      'InProgress',
      'InProgress',
      'InProgress',
      'InProgress',
      'Done',
    ]);
    const byStatus = await derived('contract', 80, STATUS);
    expect(byStatus.results.map(([, progress]) => progress)).toEqual([0, 80, 100, 80]);
    expect(byStatus.created).toEqual(['InProgress', 1]);
  });

  test("statusMapping 'coarse': below 50 NotStarted, 50-99 InProgress, 100 Done; InProgress alone 50", async () => {
    const byProgress = await derived('coarse', 80, PROGRESS);
    expect(byProgress.results.map(([status]) => status)).toEqual([
      'NotStarted',
      'NotStarted',
      'NotStarted',
      'NotStarted',
      'InProgress',
      'InProgress',
      'Done',
    ]);
    const byStatus = await derived('coarse', 80, STATUS);
    expect(byStatus.results.map(([, progress]) => progress)).toEqual([0, 50, 100, 80]);
    expect(byStatus.created).toEqual(['InProgress', 50]);
    const both = await derived('coarse', 80, [{ status: 'InProgress', progress: 10 }]);
    expect(both.results).toEqual([['InProgress', 10]]); // both sent: stored as sent
  });
});

describe('readings: options and profiles', () => {
  test('missing switches take the defaults; a bad value or an unknown switch is a usage error', () => {
    expect(resolveSimulatorOptions().readings).toEqual(DEFAULT_READINGS);
    expect(resolveSimulatorOptions({ readings: { hiddenRecord: 404 } }).readings).toEqual({
      ...DEFAULT_READINGS,
      hiddenRecord: 404,
    });
    const bad = { identity: 'sometimes' } as unknown as Partial<SimReadings>;
    expect(() => resolveSimulatorOptions({ readings: bad })).toThrow(UsageError);
    expect(() => resolveSimulatorOptions({ readings: bad })).toThrow(
      'readings.identity must be one of first-write, first-request, not sometimes',
    );
    const unknown = { colour: 'blue' } as unknown as Partial<SimReadings>;
    expect(() => resolveSimulatorOptions({ readings: unknown })).toThrow('readings.colour');
  });

  test('READING_PROFILES: default, alternate (every switch flipped), then each switch alone', () => {
    const names = READING_PROFILES.map(([name]) => name);
    expect(names.slice(0, 2)).toEqual(['default', 'alternate']);
    expect(new Set(names).size).toBe(names.length);
    expect(READING_PROFILES[0]?.[1]).toEqual(DEFAULT_READINGS);
    expect(READING_PROFILES[1]?.[1]).toEqual(ALTERNATE_READINGS);
    const switches = Object.keys(DEFAULT_READINGS) as (keyof SimReadings)[];
    for (const name of switches) expect(ALTERNATE_READINGS[name]).not.toBe(DEFAULT_READINGS[name]);
    const singles = READING_PROFILES.slice(2);
    expect(singles.length).toBe(switches.length);
    for (const [name, readings] of singles) {
      const flipped = switches.filter((key) => readings[key] !== DEFAULT_READINGS[key]);
      expect(flipped.length).toBe(1);
      expect(name).toBe(`${flipped[0]}=${readings[flipped[0] as keyof SimReadings]}`);
      expect(resolveSimulatorOptions({ readings }).readings).toEqual(readings);
    }
  });
});
