/**
 * The README's promise for `export --out -` on PostgreSQL: the view's rows are written as they
 * are read, through a cursor of the export's one snapshot, never held all at once, and the
 * snapshot may wait on a slow reader past the session's idle-in-transaction timeout.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../src/domain/index.js';
import { writeView } from '../../src/report/index.js';
import { ITERATE_BATCH_ROWS } from '../../src/store/postgres/pg-connection.js';
import { openConnection } from '../fixtures/connection.js';
import { startPostgres } from '../fixtures/postgres.js';
import { storeOver } from '../fixtures/store.js';

describe('export of one view to standard output, on PostgreSQL', () => {
  it('writes the rows as a cursor of one snapshot fetches them, the idle timeout lifted meanwhile', async () => {
    const server = await startPostgres();
    const db = await openConnection({ db: await server.database() }, 'write');
    onTestFinished(() => db.close());
    const tasks = 2 * ITERATE_BATCH_ROWS + 1;
    await db.exec(`INSERT INTO projects (id, name, data, synced_at)
      VALUES ('p1', 'Bridge', '{"id":"p1","name":"Bridge"}', now())`);
    await db.exec(`INSERT INTO tasks (id, project_id, name, data, synced_at)
      SELECT 't' || n, 'p1', 'Task ' || n, jsonb_build_object('id', 't' || n), now()
      FROM generate_series(1, ${tasks}) AS n`);
    const read = (sql: string) => db.prepare(sql).pluck().get();
    const seen: unknown[] = [];
    let text = '';
    await writeView(
      storeOver(db, systemClock).reports,
      'v_tasks',
      { format: 'csv', projectId: undefined, bom: false },
      async (pieces) => {
        for await (const piece of pieces) {
          // What the session holds while the writer waits on its reader, once the first row came
          // (the header comes before any): the cursor, with the rows left.
          if (text !== '' && seen.length === 0) {
            seen.push(await read('SELECT count(*) FROM pg_cursors'));
            seen.push(await read('SHOW idle_in_transaction_session_timeout'));
          }
          text += piece;
        }
      },
    );
    expect(seen).toEqual([1, '0']);
    expect(text.trimEnd().split('\n')).toHaveLength(tasks + 1);
    expect(await read('SELECT count(*) FROM pg_cursors')).toBe(0);
    expect(await read('SHOW idle_in_transaction_session_timeout')).toBe('1min');
  });
});
