/**
 * A pass asked for because of a change just learned (`fresh`) never joins a pass whose reads
 * began before it (issue 34): it waits for that pass, then one more runs, shared by every such
 * caller meanwhile. A plain call joins the pass running.
 */
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

/** Holds the fake service's first read of page 2 until `release()`, and says when it began. */
function holdFirstPage(remote: ReturnType<typeof setup>['remote']) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const reading = new Promise<void>((resolve) => (began = resolve));
  let held = false;
  remote.beforePage = async (_projectId, page) => {
    if (page !== 2 || held) return;
    held = true;
    began();
    await released;
  };
  return { reading, release };
}

describe('a fresh pass', () => {
  it('does not join a pass whose reads began before the change; one more pass sees it', async () => {
    const { db, remote, mirror } = setup({ pageSize: 2 });
    remote.seed('p1', 3);
    await mirror.syncProject('p1');
    const { reading, release } = holdFirstPage(remote);
    const first = mirror.syncProject('p1');
    await reading;
    // The first pass has read page 1 as it was; then the service changes a task on it.
    remote.tasks.get('p1')![0]!.name = 'renamed after the read began';
    const joined = mirror.syncProject('p1');
    const fresh = [
      mirror.syncProject('p1', { fresh: true }),
      mirror.syncProject('p1', { fresh: true }),
    ];
    release();
    const [firstResult, joinedResult] = await Promise.all([first, joined]);
    expect(joinedResult).toBe(firstResult);
    const [freshA, freshB] = await Promise.all(fresh);
    expect(freshA).not.toBe(firstResult);
    expect(freshB).toBe(freshA); // the fresh callers share one more pass
    expect(freshA?.ok).toBe(true);
    expect(remote.count('getProject')).toBe(3); // the first sync, the held pass, one more
    const name = db.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
    expect(name.get('p1-t1')).toBe('renamed after the read began');
  });

  it('runs at once when no pass is running', async () => {
    const { remote, mirror } = setup();
    remote.seed('p1', 3);
    const result = await mirror.syncProject('p1', { fresh: true });
    expect(result.ok).toBe(true);
    expect(remote.count('getProject')).toBe(1);
  });
});
