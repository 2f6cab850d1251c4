/**
 * The store's reporting face (`ReportsPort`), as `report` and `export` ask it: a snapshot hands a
 * view's rows over a batch at a time, all from one state of the mirror however long the reader
 * takes, and leaves the store's host when it ends.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { openReportStore } from '../../src/store/open.js';
import { buildReportMirror } from '../report/mirror.js';

describe('the reports group of the store', () => {
  it('reads a view in batches from one snapshot, while another connection deletes its rows', async () => {
    const { db, file } = await buildReportMirror();
    const store = await openReportStore({ db: file }, undefined);
    onTestFinished(() => store.close());
    const all = db
      .prepare<[], { task_id: string }>('SELECT task_id FROM v_tasks ORDER BY project_id, task_id')
      .pluck()
      .all();
    expect(all.length).toBeGreaterThan(3);

    const snapshot = await store.reports.snapshot();
    const head = await snapshot.read('v_tasks', {});
    expect(head.columns).toContain('task_id');
    const first = await snapshot.next(2);
    expect(first.map((row) => row['task_id'])).toEqual(all.slice(0, 2));
    // The daemon writes meanwhile (ending its change batch as the store's connection does): the
    // snapshot reads on as the mirror was.
    db.transaction(() => db.exec('DELETE FROM tasks; UPDATE change_batch SET open = NULL'))();
    const rest = await snapshot.next(1_000);
    expect(rest.map((row) => row['task_id'])).toEqual(all.slice(2));
    expect(await snapshot.next(1_000)).toEqual([]);
    await snapshot.end();
    await expect(snapshot.next(1)).rejects.toThrow(/no unit snapshot:\d+\.next/);

    const after = await store.reports.snapshot();
    await after.read('v_tasks', {});
    expect(await after.next(1_000)).toEqual([]);
    await after.end();
  });

  it('reads one project, and names a project the mirror does not hold', async () => {
    const { file } = await buildReportMirror();
    const store = await openReportStore({ db: file }, undefined);
    onTestFinished(() => store.close());
    await expect(store.reports.checkProject('p_bravo')).resolves.toBeUndefined();
    await expect(store.reports.checkProject('p_nope')).rejects.toThrow(
      '--project p_nope is not in the mirror',
    );
    const report = await store.reports.report({ projectId: 'p_bravo' });
    expect(report.progress.rows.map((row) => row['project_id'])).toEqual(['p_bravo']);
    expect(report.totals.projects).toBe(1);
  });
});
