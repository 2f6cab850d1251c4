/**
 * Executes docs/postgresql.md's "Running several daemons on PostgreSQL" as its reader would,
 * against a real server with password authentication and TLS: the SQL block as the database's owner, the
 * unit's drop-in (its `PROJMIRROR_DB` URL, pointed at this server, and the `db-password`
 * credential) for `run` and `sync` as `projmirror`, then `status`, `report` and a query as `bi`,
 * whose writes are refused. The password never shows in what the commands print.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { makeCertificate } from '../../src/sim/tls.js';
import { runCli, startCli, problemLines } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { fencedBlocks } from '../docs/pages.js';

const TOKEN = 'glt_test_postgres_doc';
const PASSWORD = 'pm-secret-Pw-7731';
const BI_PASSWORD = 'bi-secret-Pw-1187';

/** The first fenced block of `language` under `## heading` in the documentation. */
function docBlock(heading: string, language: string): string {
  const [block] = fencedBlocks(heading, language);
  if (block === undefined) throw new Error(`no ${language} block under ${heading}`);
  return block;
}

const HEADING = 'Running several daemons on PostgreSQL';

describe('docs/postgresql.md', () => {
  it('sets up the roles, runs the daemon from the drop-in, and serves the BI user', async () => {
    const certificate = await makeCertificate();
    const server = await startPostgres({ passwordAuth: true, tls: certificate });
    const owner = new pg.Client({ connectionString: server.adminUrl });
    await owner.connect();
    await owner.query('CREATE DATABASE mirror');
    await owner.end();
    const admin = new pg.Client({
      connectionString: server.adminUrl.replace(/\/postgres$/, '/mirror'),
    });
    await admin.connect();
    try {
      // The SQL block as written, then the passwords `\password` would set.
      await admin.query(docBlock(HEADING, 'sql'));
      await admin.query(`ALTER ROLE projmirror PASSWORD '${PASSWORD}'`);
      await admin.query(`ALTER ROLE bi PASSWORD '${BI_PASSWORD}'`);

      // The drop-in: its URL with this server's address and CA, its credential directory.
      const dir = tempDir();
      const dropIn = docBlock(HEADING, 'ini');
      const documented = /^Environment=PROJMIRROR_DB=(\S+)$/m.exec(dropIn)![1]!;
      const caFile = join(dir, 'db-ca.pem');
      writeFileSync(caFile, certificate.cert);
      const url = documented
        .replace('db.example.com:5432', `127.0.0.1:${server.port}`)
        .replace('/etc/projmirror/db-ca.pem', caFile);
      expect(url).toMatch(/sslmode=verify-full/);
      expect(dropIn).toMatch(/^LoadCredential=db-password:/m);
      const credentials = join(dir, 'credentials');
      mkdirSync(credentials);
      writeFileSync(join(credentials, 'db-password'), `${PASSWORD}\n`, { mode: 0o600 });
      const sim = await startTestSimulator({ projects: 2, tasks: 25, tokens: [TOKEN] });
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
      const env = { PROJMIRROR_DB: url, CREDENTIALS_DIRECTORY: credentials };
      const remote = ['--base-url', sim.baseUrl, '--token-file', tokenFile];

      const sync = await runCli(['sync', ...remote], { env, cwd: dir });
      expect(sync.stderr).not.toContain(PASSWORD);
      expect(problemLines(sync.stderr)).toEqual([]);
      expect(sync.code).toBe(0);
      expect(sync.stdout).toMatch(/^sync: 2 projects consistent, 0 failed; 50 tasks;/m);

      // The daemon as the unit runs it, then status and report as bi.
      const daemon = startCli(['run', ...remote, '--log-level', 'warn'], { env, cwd: dir });
      const biUrl = `postgres://bi@127.0.0.1:${server.port}/mirror?sslmode=verify-full&sslrootcert=${caFile}`;
      const biPassword = join(dir, 'bi-password');
      writeFileSync(biPassword, BI_PASSWORD, { mode: 0o600 });
      const asBi = ['--db', biUrl, '--db-password-file', biPassword];
      const deadline = Date.now() + 20_000;
      let status = await runCli(['status', ...asBi], { cwd: dir });
      while (!/p_1, p_2$/m.test(status.stdout) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = await runCli(['status', ...asBi], { cwd: dir });
      }
      expect(status.stdout).toMatch(/^daemons \(1\):$/m);
      expect(status.stdout).toMatch(/p_1, p_2$/m);
      const report = await runCli(['report', ...asBi], { cwd: dir });
      expect(report.code).toBe(0);
      expect(report.stdout).toMatch(/^Project progress \(2 projects/m);
      daemon.child.kill('SIGTERM');
      expect((await daemon.ended).code).toBe(0);

      // A BI tool connected as bi reads the views by name and cannot write.
      const bi = new pg.Client({
        host: '127.0.0.1',
        port: server.port,
        database: 'mirror',
        user: 'bi',
        password: BI_PASSWORD,
        ssl: { ca: certificate.cert },
      });
      await bi.connect();
      try {
        const { rows } = await bi.query<{ n: string }>('SELECT count(*) AS n FROM v_tasks');
        expect(rows[0]!.n).toBe('50');
        await expect(bi.query(`DELETE FROM tasks`)).rejects.toThrow(/permission denied/);
      } finally {
        await bi.end();
      }

      // The other TLS modes the README names: require (encrypted, unverified) and verify-ca.
      for (const mode of ['sslmode=require', `sslmode=verify-ca&sslrootcert=${caFile}`]) {
        const db = `postgres://bi@127.0.0.1:${server.port}/mirror?${mode}`;
        const shown = await runCli(['status', '--db', db, '--db-password-file', biPassword], {
          cwd: dir,
        });
        expect(shown.stderr).toBe('');
        expect(shown.stdout).toMatch(/^daemons: none running on this PostgreSQL mirror$/m);
      }

      // verify-full without the database's CA refuses the server's certificate.
      const untrusted = await runCli(
        ['status', '--db', biUrl.replace(/&sslrootcert=.*$/, ''), '--db-password-file', biPassword],
        { cwd: dir },
      );
      expect(untrusted.code).not.toBe(0);
      expect(untrusted.stderr).toMatch(/^projmirror: cannot connect to .*certificate/);
      // verify-ca checks the chain too, only not the name.
      const untrustedCa = await runCli(
        [
          'status',
          '--db',
          `postgres://bi@127.0.0.1:${server.port}/mirror?sslmode=verify-ca`,
          '--db-password-file',
          biPassword,
        ],
        { cwd: dir },
      );
      expect(untrustedCa.code).not.toBe(0);
      expect(untrustedCa.stderr).toMatch(/^projmirror: cannot connect to .*certificate/);

      // A wrong password is one line naming the database, without the password.
      writeFileSync(join(credentials, 'db-password'), 'not-it');
      const refused = await runCli(['sync', ...remote], { env, cwd: dir });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /^projmirror: cannot connect to postgres:\/\/projmirror@127\.0\.0\.1:\d+\/mirror \(schema projmirror\): password authentication failed/,
      );
      expect(refused.stderr).not.toContain('not-it');
    } finally {
      await admin.end();
    }
  }, 120_000);
});
