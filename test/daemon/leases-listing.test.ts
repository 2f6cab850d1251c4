/**
 * What a daemon sharing a PostgreSQL mirror tells the others it lists: an incomplete listing
 * (one of its tokens failed) keeps what it listed before, so that a project only that token
 * sees never looks unseen to another daemon, which would remove it from the mirror.
 */
import pino from 'pino';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { LeaseKeeper } from '../../src/store/thread/leases.js';
import { Coordination } from '../../src/store/postgres/coordination.js';
import { openConnection } from '../fixtures/connection.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
});

async function keeper(url: string, label: string): Promise<LeaseKeeper> {
  const db = await openConnection({ db: url }, 'write');
  const leases = await LeaseKeeper.start({
    coordination: new Coordination(db),
    tokens: [label],
    version: 'test',
    logger: pino({ level: 'silent' }),
    autoRenew: false,
  });
  onTestFinished(async () => {
    await leases.stop();
    db.close();
  });
  await leases.advertise();
  return leases;
}

describe('a daemon listing projects on a shared mirror', () => {
  it('keeps advertising what an incomplete listing missed; a complete one drops it', async () => {
    const url = await server.database();
    const a = await keeper(url, 'a');
    const b = await keeper(url, 'b');
    expect(await a.listed(['p_1', 'p_2'])).toEqual(['p_1', 'p_2']);
    await b.listed([]);
    expect(await b.removable(['p_1', 'p_2'])).toEqual([]);

    // a's token for p_2 failed to list: p_2 is still a's, not unseen.
    expect(await a.listed(['p_1'], false)).toEqual(['p_1', 'p_2']);
    expect(await b.removable(['p_1', 'p_2'])).toEqual([]);

    // A complete listing without p_2: p_2 is gone for every token.
    await a.listed(['p_1']);
    expect(await b.removable(['p_1', 'p_2'])).toEqual(['p_2']);
  });
});
