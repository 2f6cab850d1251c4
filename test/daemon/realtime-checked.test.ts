/**
 * An event is checked once, where it enters the daemon (`checkEvent`): one whose record does not
 * check writes nothing and becomes a hint to refresh the project it names (docs/sync.md, "Events
 * are checked like responses"), end to end over the simulator's socket.
 */
import { describe, expect, it } from 'vitest';
import { startTestSimulator } from '../fixtures/sim.js';
import { eventually, startTestDaemon } from './fixtures.js';

const TOKEN = 'glt_test_daemon_realtime_checked';

describe('daemon realtime: a malformed event', () => {
  it('writes nothing and becomes a hint that refreshes its project', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim, { daemon: { coalesceMs: 50 } });
    await eventually(() => daemon.connected);
    const [task] = sim.service.listTasks('p_1');
    const name = () =>
      db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(task!.id) as string;
    const before = name();
    const projectReads = sim.requestLog.count({ route: 'getProject' });
    sim.realtime.sendRaw(
      JSON.stringify({
        type: 'task.updated',
        projectId: 'p_1',
        id: task!.id,
        data: { ...task, name: 7 },
      }),
    );
    await eventually(() => sim.requestLog.count({ route: 'getProject' }) > projectReads);
    expect(name()).toBe(before);
    // The channel still writes the events that check.
    sim.service.updateTask(task!.id, { name: 'Checked and written' });
    await eventually(() => name() === 'Checked and written');
  });
});
