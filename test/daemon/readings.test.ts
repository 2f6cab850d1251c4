/**
 * The daemon against every reading of what the spec leaves open (the simulator's
 * `READING_PROFILES`): changes of every kind made on the service, each announced as that reading
 * announces it, and an outbox item pushed by the daemon, reach the mirror with no pass (the
 * events carry what changed, or name the list to read again), and the mirror equals the service.
 */
import { describe, expect, it } from 'vitest';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { READING_PROFILES } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { differences, waitUntil } from '../reliability/helpers.js';
import { startTestDaemon } from './fixtures.js';

const TOKEN = 'glt_test_daemon_readings';

describe.each(READING_PROFILES.map(([name, readings]) => ({ name, readings })))(
  'the daemon under the $name reading',
  ({ readings }) => {
    it('follows every kind of change through realtime alone, and pushes exactly once', async () => {
      const sim = await startTestSimulator({ projects: 2, tasks: 6, tokens: [TOKEN], readings });
      const { daemon, db } = await startTestDaemon(sim, {
        daemon: { coalesceMs: 20, outboxIdleMs: 20 },
      });
      expect(await waitUntil(() => daemon.connected, 5_000)).toBe(true);
      expect(await waitUntil(() => differences(db, sim).length === 0, 5_000)).toBe(true);
      const passes = () => sim.requestLog.count({ route: 'listTasks' });
      const before = passes();

      const service = sim.service;
      const [first, second, third] = service.listTasks('p_1');
      service.updateTask(first!.id, { name: 'renamed on the service', progress: 60 });
      service.updateTask(second!.id, { status: 'InProgress' });
      service.deleteTask(third!.id);
      const born = service.createTask('p_2', { name: 'born on the service' });
      const member = service.addMember('p_1', { name: 'New Person' });
      service.setAssignees(first!.id, [member.id]);
      service.reorderTasks(
        'p_1',
        service
          .listTasks('p_1')
          .map((task) => task.id)
          .reverse(),
      );
      const tasks = service.listTasks('p_1');
      service.setDependencies('p_1', [
        { predecessorId: tasks[0]!.id, successorId: tasks[1]!.id },
        { predecessorId: tasks[1]!.id, successorId: tasks[2]!.id },
      ]);
      const added = service.addDependency('p_1', {
        predecessorId: tasks[2]!.id,
        successorId: tasks[3]!.id,
      });
      service.removeDependency(added.id);
      const resource = service.createResource('p_2', { name: 'Crane' });
      service.updateResource(resource.id, { name: 'Tower crane' });
      service.deleteResource(service.listResources('p_2')[0]!.id);
      service.updateProject('p_2', { name: 'Renamed project' });
      const item = await enqueue(
        db,
        {
          op: 'task.create',
          projectId: 'p_1',
          body: {
            name: 'from the outbox',
            startDate: '2026-12-01',
            endDate: '2026-12-02',
            status: 'NotStarted',
          },
        },
        Date.now(),
      );

      const converged = await waitUntil(() => differences(db, sim).length === 0, 8_000);
      expect(converged, differences(db, sim).join(', ')).toBe(true);
      const row = (sql: string, ...params: unknown[]) =>
        db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
      expect(row('SELECT name, progress FROM tasks WHERE id = ?', first!.id)).toEqual({
        name: 'renamed on the service',
        progress: 60,
      });
      expect(row('SELECT status FROM tasks WHERE id = ?', second!.id)).toEqual({
        status: service.getTask(second!.id)!.status,
      });
      expect(row('SELECT name FROM tasks WHERE id = ?', born.id)).toEqual({
        name: 'born on the service',
      });
      expect(row('SELECT name FROM projects WHERE id = ?', 'p_2')).toEqual({
        name: 'Renamed project',
      });
      expect(
        await waitUntil(
          () => row('SELECT state FROM outbox WHERE id = ?', item.id)?.state === 'done',
          5_000,
        ),
      ).toBe(true);
      const created = service.listTasks('p_1').filter((task) => task.name === 'from the outbox');
      expect(created).toHaveLength(1);
      expect(row('SELECT name FROM tasks WHERE id = ?', created[0]!.id)).toEqual({
        name: 'from the outbox',
      });
      // Every change was announced with its record or named its list: no pass was needed.
      expect(passes()).toBe(before);
    });
  },
);
