/**
 * Where a PostgreSQL mirror is: `--db postgres://user@host:5432/dbname?sslmode=verify-full`,
 * read as libpq users know it (`sslmode`, `sslrootcert`), plus our `schema` (default
 * `projmirror`). The password is never in the URL: it comes from `--db-password-file`, else from
 * the systemd credential `db-password` (`$CREDENTIALS_DIRECTORY`), else from libpq's password
 * file (`PGPASSFILE`, `~/.pgpass`), which node-postgres reads itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PoolConfig } from 'pg';
import { UsageError } from '../../domain/index.js';
import { readSmallFile } from '../../domain/small-file.js';
import { trustedCertificates } from '../../domain/tls.js';

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

const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** The TLS option (read by the bridge's worker) that skips the check of the server's name. */
export const SKIP_NAME_CHECK = 'projmirrorSkipNameCheck';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A PostgreSQL mirror's connection settings, schema, and a name for messages. */
export interface PgTarget {
  config: PoolConfig;
  schema: string;
  /** `postgres://user@host:port/db (schema s)`: safe to print, it holds no password. */
  display: string;
}

/** True when `--db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** How to find the password: an explicit file, or the process's environment. */
export interface PasswordSource {
  passwordFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** Reads `--db`'s URL into connection settings; a bad part is a `UsageError` naming it. */
export function parsePgTarget(url: string, source: PasswordSource = {}): PgTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--db ${redact(url)} is not a valid postgres:// URL`);
  }
  if (parsed.password !== '') {
    throw new UsageError(
      `--db must not hold a password: put it in --db-password-file or the ${DB_PASSWORD_CREDENTIAL} credential`,
    );
  }
  const params = parsed.searchParams;
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const user = decodeURIComponent(parsed.username);
  const schema = params.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new UsageError(`--db schema ${JSON.stringify(schema)} is not a plain lower-case name`);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost';
  const port = parsed.port === '' ? 5432 : Number(parsed.port);
  const config: PoolConfig = {
    host,
    port,
    ...(database === '' ? {} : { database }),
    ...(user === '' ? {} : { user }),
    max: 1,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'projmirror',
    ssl: sslOptions(params),
  };
  const password = readPassword(source);
  if (password !== undefined) config.password = password;
  const display = `postgres://${user === '' ? '' : `${user}@`}${parsed.host}/${database} (schema ${schema})`;
  return { config, schema, display };
}

/** The statements every session runs first: our schema, UTC, and bounded waits. */
export function sessionStatements(schema: string): string[] {
  return [
    `SET search_path TO "${schema}"`,
    `SET TIME ZONE 'UTC'`,
    `SET lock_timeout = ${PG_LOCK_TIMEOUT_MS}`,
    `SET idle_in_transaction_session_timeout = ${PG_IDLE_IN_TRANSACTION_MS}`,
  ];
}

/** TLS as libpq's `sslmode` means it (without one: no TLS, as node-postgres). */
function sslOptions(params: URLSearchParams): PoolConfig['ssl'] {
  const mode = params.get('sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(
      `--db sslmode=${mode} is not supported; use one of ${SSL_MODES.join(', ')}`,
    );
  }
  const rootFile = params.get('sslrootcert') ?? undefined;
  const ca = trustedCertificates(rootFile);
  if (mode === 'disable') return false;
  if (mode === 'require' && rootFile === undefined) return { rejectUnauthorized: false };
  // node-postgres checks the name against the host it connects to (an IP against the IP SANs).
  if (mode === 'verify-full') return ca ? { ca } : {};
  // verify-ca (and require with a root certificate, as libpq has it): the chain, not the name.
  // A function cannot cross into the bridge's worker: the worker turns this flag into one.
  return { ...(ca ? { ca } : {}), [SKIP_NAME_CHECK]: true } as PoolConfig['ssl'];
}

function readPassword(source: PasswordSource): string | undefined {
  const env = source.env ?? process.env;
  const credentials = env['CREDENTIALS_DIRECTORY'];
  const credential = credentials ? join(credentials, DB_PASSWORD_CREDENTIAL) : undefined;
  const file =
    source.passwordFile ??
    (credential !== undefined && existsSync(credential) ? credential : undefined);
  if (file === undefined) return undefined;
  const { text } = readSmallFile(file, MAX_PASSWORD_FILE_BYTES, `password file ${file}`);
  return text.replace(/\r?\n$/, '');
}

/** The URL with any password replaced, for a message. */
function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
