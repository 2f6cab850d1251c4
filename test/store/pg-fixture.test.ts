import pg from 'pg';
import { beforeAll, expect, test } from 'vitest';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
});

test('the fixture starts a real PostgreSQL on loopback and hands out databases', async () => {
  const url = await server.database();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ v: string }>(
    'SELECT current_setting($$server_version$$) AS v',
  );
  await client.end();
  expect(rows[0]!.v).toMatch(/^\d+/);
});
