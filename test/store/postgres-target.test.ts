/**
 * `--db postgres://...` and libpq's environment as libpq users know them (issue 22, point 9):
 * sslmode prefer and allow, client certificates, Unix-socket hosts, the PG* variables, unknown
 * parameters refused, and ~/.pgpass read without node-postgres' DeprecationWarning, a loose one
 * refused in one line. Parsing is checked directly; connecting, on a real server.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import { parsePgTarget } from '../../src/store/postgres/target.js';
import { makeCertificate } from '../../src/sim/tls.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

const NO_ENV = { USER: 'alice' };

function secretFile(dir: string, name: string, text: string, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
  return file;
}

describe('parsePgTarget', () => {
  it('reads every libpq sslmode: allow connects in clear, prefer and require encrypt unverified', () => {
    const ssl = (mode: string) =>
      parsePgTarget(`postgres://u@db.example.com/m?sslmode=${mode}`, { env: NO_ENV }).config.ssl;
    expect(ssl('disable')).toBe(false);
    expect(ssl('allow')).toBe(false);
    expect(ssl('prefer')).toEqual({ rejectUnauthorized: false });
    expect(ssl('require')).toEqual({ rejectUnauthorized: false });
    expect(ssl('verify-full')).toEqual({});
    expect(() => ssl('sometimes')).toThrow(
      new UsageError(
        '--db sslmode=sometimes is not supported; use one of disable, allow, prefer, require, verify-ca, verify-full',
      ),
    );
  });

  it('takes Unix-socket hosts in both spellings, never with TLS', () => {
    const encoded = parsePgTarget(
      'postgres://me@%2Fvar%2Frun%2Fpostgresql:5433/mirror?sslmode=require',
      { env: NO_ENV },
    );
    expect(encoded.config).toMatchObject({
      host: '/var/run/postgresql',
      port: 5433,
      user: 'me',
      database: 'mirror',
      ssl: false,
    });
    expect(encoded.display).toBe(
      'postgres://me@%2Fvar%2Frun%2Fpostgresql:5433/mirror (schema projmirror)',
    );
    const param = parsePgTarget('postgres:///mirror?host=/tmp/pg', { env: NO_ENV });
    expect(param.config).toMatchObject({ host: '/tmp/pg', port: 5432, user: userInfo().username });
  });

  it('fills what the URL leaves out from PGHOST, PGPORT, PGUSER, PGDATABASE and PGSSLMODE', () => {
    const env = {
      PGHOST: 'db.internal',
      PGPORT: '6543',
      PGUSER: 'mirror',
      PGDATABASE: 'projects',
      PGSSLMODE: 'require',
    };
    expect(parsePgTarget('postgres://', { env }).config).toMatchObject({
      host: 'db.internal',
      port: 6543,
      user: 'mirror',
      database: 'projects',
      ssl: { rejectUnauthorized: false },
    });
    // The URL beats the environment, part by part.
    expect(
      parsePgTarget('postgres://me@other:7000/db?sslmode=disable', { env }).config,
    ).toMatchObject({ host: 'other', port: 7000, user: 'me', database: 'db', ssl: false });
    // Without either, libpq's defaults: the OS user, a database of the user's name.
    expect(parsePgTarget('postgres://localhost', { env: NO_ENV }).config).toMatchObject({
      port: 5432,
      database: expect.any(String),
    });
    expect(() => parsePgTarget('postgres://', { env: { PGPORT: 'fifty' } })).toThrow(
      '--db port "fifty" is not a port number',
    );
  });

  it('reads a client certificate and key (sslcert, sslkey, or PGSSLCERT, PGSSLKEY)', async () => {
    const { cert, key } = await makeCertificate();
    const dir = tempDir();
    const certFile = secretFile(dir, 'client.crt', cert, 0o644);
    const keyFile = secretFile(dir, 'client.key', key);
    const url = `postgres://u@db/m?sslmode=verify-full&sslcert=${certFile}&sslkey=${keyFile}`;
    expect(parsePgTarget(url, { env: NO_ENV }).config.ssl).toEqual({ cert, key });
    const fromEnv = parsePgTarget('postgres://u@db/m?sslmode=require', {
      env: { PGSSLCERT: certFile, PGSSLKEY: keyFile },
    });
    expect(fromEnv.config.ssl).toEqual({ cert, key, rejectUnauthorized: false });
    expect(() =>
      parsePgTarget(`postgres://u@db/m?sslmode=require&sslcert=${certFile}`, { env: NO_ENV }),
    ).toThrow('--db sslcert needs sslkey too');
    chmodSync(keyFile, 0o644);
    expect(() => parsePgTarget(url, { env: NO_ENV })).toThrow(
      `client key ${keyFile} has group or world access (mode 0644): chmod 600 it`,
    );
  });

  it('refuses parameters it does not read, naming each, and a password in any form', () => {
    expect(() =>
      parsePgTarget('postgres://u@db/m?sslmode=require&connect_timeout=5&sslcompression=1', {
        env: NO_ENV,
      }),
    ).toThrow(/^--db has unknown parameters connect_timeout, sslcompression \(known: schema, /);
    expect(() => parsePgTarget('postgres://u@db/m?password=x', { env: NO_ENV })).toThrow(
      /must not hold a password/,
    );
  });

  it('finds the password in the pgpass file, a socket host matching "localhost"', () => {
    const dir = tempDir();
    const file = secretFile(
      dir,
      'pgpass',
      ['# comment', 'db:5432:m:u:tcp-secret', 'localhost:5432:*:u:socket-secret', ''].join('\n'),
    );
    const env = { PGPASSFILE: file };
    expect(parsePgTarget('postgres://u@db/m', { env }).config.password).toBe('tcp-secret');
    expect(parsePgTarget('postgres://u@%2Frun%2Fpg/m', { env }).config.password).toBe(
      'socket-secret',
    );
    expect(parsePgTarget('postgres://v@db/m', { env }).config.password).toBeUndefined();
    // PGPASSWORD comes before the file, as in libpq.
    expect(
      parsePgTarget('postgres://u@db/m', { env: { ...env, PGPASSWORD: 'env-secret' } }).config
        .password,
    ).toBe('env-secret');
    chmodSync(file, 0o644);
    expect(() => parsePgTarget('postgres://u@db/m', { env })).toThrow(
      new UsageError(`password file ${file} has group or world access (mode 0644): chmod 600 it`),
    );
  });
});

describe('connecting as libpq users do, on a real server', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres({ passwordAuth: true, tls: await makeCertificate() });
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`CREATE ROLE reader LOGIN PASSWORD 'pgpass-secret'`);
    await admin.end();
  });

  const status = (db: string, env: NodeJS.ProcessEnv = {}) =>
    runCli(['status', '--db', db], { env, cwd: tempDir() });
  /**
   * `status` on the server's `postgres` database, which holds no mirror: a user who got that far
   * connected, logged in and read the catalog, and saw that line alone (no warning besides).
   */
  const expectConnected = (run: { code: number | null; stderr: string }, what: string) =>
    expect({ what, code: run.code, stderr: run.stderr }).toEqual({
      what,
      code: 2,
      stderr: expect.stringMatching(
        /^projmirror: --db postgres:.* holds no projmirror mirror; run projmirror sync first\n$/,
      ),
    });

  it('connects over a Unix socket, from the URL or from PGHOST and PGPORT', async () => {
    const socketDir = dirname(server.logFile);
    const viaUrl = await status(
      `postgres://admin@${encodeURIComponent(socketDir)}:${server.port}/postgres`,
    );
    expectConnected(viaUrl, 'socket in the URL');
    const viaEnv = await status('postgres:///postgres', {
      PGHOST: socketDir,
      PGPORT: String(server.port),
      PGUSER: 'admin',
    });
    expectConnected(viaEnv, 'socket from PGHOST');
  });

  it('accepts sslmode=prefer and allow as libpq URLs carry them', async () => {
    for (const mode of ['prefer', 'allow']) {
      const run = await status(
        `postgres://admin@127.0.0.1:${server.port}/postgres?sslmode=${mode}`,
      );
      expectConnected(run, mode);
    }
    const fromEnv = await status(`postgres://admin@127.0.0.1:${server.port}/postgres`, {
      PGSSLMODE: 'prefer',
    });
    expectConnected(fromEnv, 'PGSSLMODE=prefer');
  });

  it('reads ~/.pgpass without a DeprecationWarning, and names a loose one in one line', async () => {
    const dir = tempDir();
    const pgpass = secretFile(dir, '.pgpass', `127.0.0.1:${server.port}:*:reader:pgpass-secret\n`);
    const db = `postgres://reader@127.0.0.1:${server.port}/postgres`;
    const ok = await status(db, { HOME: dir });
    expectConnected(ok, 'password from ~/.pgpass');
    // Without it, the server refuses the login: the password did come from the file.
    const without = await status(db, { HOME: tempDir() });
    expect(without.stderr).toMatch(/password/);
    chmodSync(pgpass, 0o644);
    const loose = await status(db, { HOME: dir });
    expect(loose.code).toBe(2);
    expect(loose.stderr).toBe(
      `projmirror: password file ${pgpass} has group or world access (mode 0644): chmod 600 it\n`,
    );
  });

  it('exits 2 naming unknown URL parameters, before connecting', async () => {
    const run = await status(
      `postgres://admin@127.0.0.1:${server.port}/postgres?sslmode=disable&target_session_attrs=any`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^projmirror: --db has unknown parameter target_session_attrs /);
  });
});
