/**
 * Where a PostgreSQL mirror is: `--db postgres://user@host:5432/dbname?sslmode=verify-full`, read
 * as libpq users know it, by `pg-connection-string`: Unix-socket hosts (`%2Fvar%2Frun%2Fpostgresql`
 * or `?host=/var/run/postgresql`), `sslmode`, `sslrootcert`, client certificates (`sslcert`,
 * `sslkey`), and what the URL leaves out taken from libpq's variables (`PGHOST`, `PGPORT`,
 * `PGDATABASE`, `PGUSER`, `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT`, `PGSSLKEY`), plus our
 * `schema` (default `projmirror`). The password is never in the URL: it comes from
 * `--db-password-file`, else the systemd credential `db-password` (`$CREDENTIALS_DIRECTORY`),
 * else `PGPASSWORD`, else libpq's password file (`pgpass.ts`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { parse as parseConnectionString } from 'pg-connection-string';
import type { ClientConfig } from 'pg';
import { UsageError } from '../../domain/index.js';
import { readSmallFile } from '../../domain/small-file.js';
import { trustedCertificates } from '../../domain/tls.js';
import { pgpassPassword } from './pgpass.js';

/** The schema the mirror lives in when the URL names none. */
export const DEFAULT_PG_SCHEMA = 'projmirror';
/** The name of the systemd credential holding the database password. */
export const DB_PASSWORD_CREDENTIAL = 'db-password';
/** The largest password file read, in bytes. */
export const MAX_PASSWORD_FILE_BYTES = 4096;
/** How long connecting may take, in ms. */
export const PG_CONNECT_TIMEOUT_MS = 10_000;
/** How long a statement waits for a lock another daemon holds before it fails, in ms. */
export const PG_LOCK_TIMEOUT_MS = 10_000;
/** How long a session may sit idle inside a transaction before the server ends it, in ms. */
export const PG_IDLE_IN_TRANSACTION_MS = 60_000;
/** How long the server runs one statement before it cancels it, in ms. */
export const PG_STATEMENT_TIMEOUT_MS = 60_000;
/**
 * How long the client waits for one answer before it gives the connection up (a partition: no
 * packet comes back), in ms; past the server's own statement timeout.
 */
export const PG_QUERY_TIMEOUT_MS = 75_000;
/** Idle time before TCP keepalive probes start, in ms (the kernel's default is two hours). */
export const PG_KEEPALIVE_DELAY_MS = 10_000;

/** libpq's modes; see `sslOptions` for what each means here. */
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
/** The mode when neither the URL nor `PGSSLMODE` names one (node-postgres' default). */
export const DEFAULT_SSL_MODE = 'disable';
/** The PostgreSQL port when neither the URL nor `PGPORT` names one. */
export const DEFAULT_PG_PORT = 5432;
/** The largest client certificate or key file read, in bytes. */
export const MAX_CLIENT_CERT_FILE_BYTES = 1024 * 1024;
/** The URL parameters we read; any other is refused, not silently ignored. */
export const PG_URL_PARAMETERS = [
  'schema',
  'host',
  'port',
  'user',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'application_name',
] as const;
/** Read by `pg-connection-string` as files or warnings; we read these ourselves. */
const SSL_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A PostgreSQL mirror's connection settings, schema, and a name for messages. */
export interface PgTarget {
  config: ClientConfig;
  schema: string;
  /** `postgres://user@host:port/db (schema s)`: safe to print, it holds no password. */
  display: string;
}

/** True when `--db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** How to find the password, and the environment libpq's variables come from. */
export interface PasswordSource {
  passwordFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** Reads `--db`'s URL into connection settings; a bad part is a `UsageError` naming it. */
export function parsePgTarget(url: string, source: PasswordSource = {}): PgTarget {
  const env = source.env ?? process.env;
  const params = urlParameters(url);
  const parsed = parseUrl(url, params);
  const setting = (name: string, variable: string): string | undefined =>
    nonEmpty(params.get(name)) ?? nonEmpty(env[variable]);
  const schema = params.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new UsageError(`--db schema ${JSON.stringify(schema)} is not a plain lower-case name`);
  }
  const host = nonEmpty(parsed.host) ?? nonEmpty(env['PGHOST']) ?? 'localhost';
  const port = portNumber(nonEmpty(parsed.port ?? undefined) ?? nonEmpty(env['PGPORT']));
  const user = nonEmpty(parsed.user) ?? nonEmpty(env['PGUSER']) ?? osUser(env);
  const database = nonEmpty(parsed.database ?? undefined) ?? nonEmpty(env['PGDATABASE']) ?? user;
  const config: ClientConfig = {
    host,
    port,
    database,
    user,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: PG_KEEPALIVE_DELAY_MS,
    query_timeout: PG_QUERY_TIMEOUT_MS,
    application_name: params.get('application_name') ?? 'projmirror',
    ssl: host.startsWith('/')
      ? false // libpq never uses TLS over a Unix socket, whatever sslmode says
      : sslOptions({
          mode: setting('sslmode', 'PGSSLMODE') ?? DEFAULT_SSL_MODE,
          rootFile: setting('sslrootcert', 'PGSSLROOTCERT'),
          certFile: setting('sslcert', 'PGSSLCERT'),
          keyFile: setting('sslkey', 'PGSSLKEY'),
        }),
  };
  const password = readPassword(source, env) ?? pgpassPassword({ host, port, database, user }, env);
  if (password !== undefined) config.password = password;
  const where = host.startsWith('/') ? encodeURIComponent(host) : hostForUrl(host);
  const display = `postgres://${user}@${where}:${port}/${database} (schema ${schema})`;
  return { config, schema, display };
}

/** The URL's parameters; a parameter we do not read is a `UsageError` naming it. */
function urlParameters(url: string): URLSearchParams {
  const query = url.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  if (params.has('password')) throw passwordInUrl();
  const known: readonly string[] = PG_URL_PARAMETERS;
  const unknown = [...new Set(params.keys())].filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--db has unknown parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: ${known.join(', ')})`,
    );
  }
  return params;
}

/**
 * Host, port, user and database as `pg-connection-string` reads them (a Unix-socket host
 * included), given the URL without its TLS parameters: those it would read as files or answer
 * with a warning, and we read them ourselves.
 */
function parseUrl(url: string, params: URLSearchParams) {
  const query = url.indexOf('?');
  const rest = new URLSearchParams(params);
  for (const name of SSL_PARAMETERS) rest.delete(name);
  const bare = (query < 0 ? url : url.slice(0, query)) + (rest.size > 0 ? `?${rest}` : '');
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    parsed = parseConnectionString(bare);
  } catch {
    throw new UsageError(`--db ${redact(url)} is not a valid postgres:// URL`);
  }
  if (nonEmpty(parsed.password) !== undefined) throw passwordInUrl();
  return parsed;
}

function passwordInUrl(): UsageError {
  return new UsageError(
    `--db must not hold a password: put it in --db-password-file or the ${DB_PASSWORD_CREDENTIAL} credential`,
  );
}

function portNumber(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PG_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0 || port >= 65536) {
    throw new UsageError(`--db port ${JSON.stringify(text)} is not a port number`);
  }
  return port;
}

/** libpq's default user: the operating system's user name. */
function osUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    return env['USER'] ?? 'postgres';
  }
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The statements every session runs first: our schema, UTC, bounded waits, whole-result cursors. */
export function sessionStatements(schema: string, lockTimeoutMs = PG_LOCK_TIMEOUT_MS): string[] {
  return [
    `SET search_path TO "${schema}"`,
    `SET TIME ZONE 'UTC'`,
    `SET lock_timeout = ${Math.round(lockTimeoutMs)}`,
    `SET idle_in_transaction_session_timeout = ${PG_IDLE_IN_TRANSACTION_MS}`,
    `SET statement_timeout = ${PG_STATEMENT_TIMEOUT_MS}`,
    // The only cursors are `iterate`'s, which read every row: planned for the whole result, not
    // for its first tenth (the default).
    'SET cursor_tuple_fraction = 1',
  ];
}

/** The TLS settings: libpq's `sslmode` and its certificate files. */
interface TlsSettings {
  mode: string;
  rootFile: string | undefined;
  certFile: string | undefined;
  keyFile: string | undefined;
}

/**
 * TLS as libpq's `sslmode` means it, with one difference node-postgres imposes: it cannot fall
 * back. `allow` connects without TLS (libpq's first try; a server that insists refuses us), and
 * `prefer` with TLS unverified (libpq's first try; a server without TLS refuses us).
 */
function sslOptions(tls: TlsSettings): ClientConfig['ssl'] {
  const { mode, rootFile } = tls;
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(
      `--db sslmode=${mode} is not supported; use one of ${SSL_MODES.join(', ')}`,
    );
  }
  const ca = trustedCertificates(rootFile);
  if (mode === 'disable' || mode === 'allow') return false;
  const client = clientCertificate(tls);
  if (mode === 'prefer' || (mode === 'require' && rootFile === undefined)) {
    return { ...client, rejectUnauthorized: false };
  }
  // node-postgres checks the name against the host it connects to (an IP against the IP SANs).
  if (mode === 'verify-full') return { ...client, ...(ca ? { ca } : {}) };
  // verify-ca (and require with a root certificate, as libpq has it): the chain, not the name.
  return { ...client, ...(ca ? { ca } : {}), checkServerIdentity: () => undefined };
}

/** `sslcert` and `sslkey`, both or neither, read as PEM text. */
function clientCertificate(tls: TlsSettings): { cert?: string; key?: string } {
  const { certFile, keyFile } = tls;
  if (certFile === undefined && keyFile === undefined) return {};
  if (certFile === undefined || keyFile === undefined) {
    throw new UsageError(
      `--db ${certFile === undefined ? 'sslkey' : 'sslcert'} needs ${certFile === undefined ? 'sslcert' : 'sslkey'} too`,
    );
  }
  const read = (file: string, what: string) =>
    readSmallFile(file, MAX_CLIENT_CERT_FILE_BYTES, `${what} ${file}`);
  const cert = read(certFile, 'client certificate').text;
  const key = read(keyFile, 'client key');
  // libpq's rule: 0600, or 0640 for a key a group (root's, ssl-cert) shares; never others.
  if ((key.mode & 0o037) !== 0) {
    throw new UsageError(
      `client key ${keyFile} has group or world access (mode ${key.mode.toString(8).padStart(4, '0')}): chmod 600 it`,
    );
  }
  return { cert, key: key.text };
}

/** `--db-password-file`, else the systemd credential, else `PGPASSWORD`. */
function readPassword(source: PasswordSource, env: NodeJS.ProcessEnv): string | undefined {
  const credentials = env['CREDENTIALS_DIRECTORY'];
  const credential = credentials ? join(credentials, DB_PASSWORD_CREDENTIAL) : undefined;
  const file =
    source.passwordFile ??
    (credential !== undefined && existsSync(credential) ? credential : undefined);
  if (file === undefined) return nonEmpty(env['PGPASSWORD']);
  const { text } = readSmallFile(file, MAX_PASSWORD_FILE_BYTES, `password file ${file}`);
  return text.replace(/\r?\n$/, '');
}

/** The URL with any password replaced, for a message. */
function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
