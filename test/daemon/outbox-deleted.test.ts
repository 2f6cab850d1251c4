/**
 * An update-like item whose record was deleted on the service is held in conflict by the daemon
 * too (issue 21, point 4), on the path only the daemon takes: realtime connected and the project
 * reconciled, the deletion reaches the mirror as an event and the item is checked against the
 * mirror with no re-read. To check it only once the event is in, the item waits behind an
 * earlier item of the same record held in conflict, which the test then discards with plain SQL.
 */
import { describe, expect, it } from 'vitest';
import { outboxItems } from '../fixtures/outbox.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { DELETED_TARGETS, makeRecords } from '../outbox/deleted-targets.js';
import { eventually, startTestDaemon } from './fixtures.js';

const TOKEN = 'glt_test_outbox_deleted_0123456789';

describe('the daemon and records deleted on the service', () => {
  it.each(DELETED_TARGETS)(
    'holds $op in conflict once the deletion arrived by event, with no re-read',
    async (target) => {
      const sim = await startTestSimulator({
        projects: 1,
        tasks: 2,
        dependenciesPerProject: 0,
        tokens: [TOKEN],
      });
      const records = makeRecords(sim);
      const { daemon, db } = await startTestDaemon(sim, {
        daemon: { outboxIdleMs: 20, coalesceMs: 20 },
      });
      await eventually(() => daemon.fresh(records.projectId), 10_000);
      const insert = db.prepare(
        'INSERT INTO outbox (op, project_id, target_id, body, state) VALUES (?, ?, ?, ?, ?)',
      );
      const queue = (state: string) =>
        Number(
          insert.run(
            target.op,
            records.projectId,
            target.target(records),
            JSON.stringify(target.body(records)),
            state,
          ).lastInsertRowid,
        );
      const blocker = queue('conflict');
      const id = queue('pending');
      target.remove(sim, records);
      const [table, rowId] = target.row(records);
      const held = db.prepare(`SELECT count(*) FROM ${table} WHERE id = ?`).pluck();
      await eventually(() => held.get(rowId) === 0, 10_000);
      expect((await outboxItems(db)).find((item) => item.id === id)?.state).toBe('pending');
      expect(daemon.fresh(records.projectId)).toBe(true);

      const from = sim.requestLog.entries.length;
      db.prepare(
        `UPDATE outbox SET state = 'discarded', last_error = 'discarded by hand' WHERE id = ?`,
      ).run(blocker);
      await eventually(
        async () => (await outboxItems(db)).find((item) => item.id === id)?.state !== 'pending',
      );
      const item = (await outboxItems(db)).find((row) => row.id === id)!;
      expect(item).toMatchObject({ state: 'conflict', lastError: target.lastError(records) });
      expect(JSON.parse(item.conflict!)).toMatchObject({ fields: target.fields });
      const requests = sim.requestLog.entries.slice(from);
      // (Deleting a task also deletes its dependency: that event's refresh may come meanwhile.)
      expect(requests.filter((entry) => entry.route === target.reread)).toEqual([]);
      expect(requests.filter((entry) => entry.method !== 'GET')).toEqual([]);
    },
    30_000,
  );
});
