/**
 * Opens a PostgreSQL mirror: connects, then (for a command that writes)
 * creates the schema and applies `schema.pg.sql` the first time, under an advisory lock so that
 * daemons starting together apply it once. A schema holding tables that are not a mirror of
 * ours, or a mirror of a newer version, is refused before anything in it changes.
 */
import { StoreError, UsageError } from '../../domain/index.js';
import { readSchema } from '../database.js';
import { PG_SESSION_TABLES } from '../seen-tasks.js';
import { SCHEMA_VERSION } from '../migrations.js';
import { PgConnection, PgError } from './pg-connection.js';
import { parsePgTarget, sessionStatements, type PgTarget } from './target.js';

/** The PostgreSQL dialect of the schema, beside `schema.sql`. */
export const PG_SCHEMA_FILE = 'schema.pg.sql';
/** The steps from earlier schema versions, one `-- to version N` section each. */
export const PG_UPGRADES_FILE = 'schema.pg.upgrades.sql';

/** The upgrade steps by the version they lead to, in order. */
export function upgradeSteps(text: string): Array<{ version: number; sql: string }> {
  const parts = text.split(/^-- to version (\d+)$/m);
  const steps: Array<{ version: number; sql: string }> = [];
  for (let i = 1; i < parts.length; i += 2) {
    steps.push({ version: Number(parts[i]), sql: parts[i + 1] ?? '' });
  }
  return steps;
}

/**
 * Brings a mirror at `version` to SCHEMA_VERSION, inside the caller's transaction (which holds
 * the schema's advisory lock, so two daemons starting together upgrade it once).
 */
async function upgrade(db: PgConnection, version: number): Promise<void> {
  if (version >= SCHEMA_VERSION) return;
  for (const step of upgradeSteps(readSchema(PG_UPGRADES_FILE))) {
    if (step.version <= version || step.version > SCHEMA_VERSION) continue;
    if (step.sql.replace(/^--.*$/gm, '').trim() !== '') await db.exec(step.sql);
  }
  await createMissingViews(db);
  await db
    .prepare("UPDATE schema_meta SET value = ? WHERE key = 'version'")
    .run(String(SCHEMA_VERSION));
}

/** Each `CREATE VIEW` of schema.pg.sql: its name and statement (a view's last line ends in `;`). */
const SCHEMA_VIEW = /^CREATE VIEW (\w+) AS\n[\s\S]*?;$/gm;

/**
 * Makes every view of schema.pg.sql the mirror lacks, in the file's order (a view comes after
 * those it reads), as SQLite's mirrors get theirs from schema.sql: the upgrade steps add none.
 */
async function createMissingViews(db: PgConnection): Promise<void> {
  const present = new Set(
    await db
      .prepare('SELECT viewname FROM pg_views WHERE schemaname = current_schema()')
      .pluck()
      .all(),
  );
  for (const [sql, name] of readSchema(PG_SCHEMA_FILE).matchAll(SCHEMA_VIEW)) {
    if (!present.has(name)) await db.exec(sql);
  }
}

/** How to open: for reading only (report, export, status), and where the password is. */
export interface PgOpenOptions {
  readonly?: boolean;
  passwordFile?: string | undefined;
  /** The session's `lock_timeout`, in ms (`PG_LOCK_TIMEOUT_MS` unless given). */
  lockTimeoutMs?: number | undefined;
}

/** Opens the mirror `url` names, ready for use; a `UsageError` or `StoreError` in one line. */
export async function openPostgres(
  url: string,
  options: PgOpenOptions = {},
): Promise<PgConnection> {
  const target = parsePgTarget(url, { passwordFile: options.passwordFile });
  const db = await connect(target, options.lockTimeoutMs);
  try {
    if (options.readonly) await checkMirror(db, target);
    else await prepareSchema(db, target);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof UsageError || !(error instanceof PgError)) throw error;
    throw new StoreError(`cannot prepare ${target.display}: ${error.message}`, { cause: error });
  }
}

async function connect(target: PgTarget, lockTimeoutMs?: number): Promise<PgConnection> {
  const db = new PgConnection(target.config, [
    ...sessionStatements(target.schema, lockTimeoutMs),
    ...PG_SESSION_TABLES,
  ]);
  try {
    await db.connect();
    return db;
  } catch (error) {
    db.close();
    throw new StoreError(`cannot connect to ${target.display}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The mirror's recorded identity, or undefined when the schema has no `schema_meta`. */
async function meta(db: PgConnection, schema: string): Promise<Map<string, string> | undefined> {
  const present = await db
    .prepare(`SELECT to_regclass(?) IS NOT NULL`)
    .pluck()
    .get(`"${schema}".schema_meta`);
  if (present !== 1) return undefined;
  const rows = (await db.prepare('SELECT key, value FROM schema_meta').raw().all()) as string[][];
  return new Map(rows.map(([key, value]) => [key!, value!]));
}

function checkVersion(found: Map<string, string>, target: PgTarget): void {
  if (found.get('application') !== 'projmirror') {
    throw new UsageError(`${target.display} belongs to another application; refusing to change it`);
  }
  const version = Number(found.get('version'));
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      `${target.display} is at schema version ${version}, newer than this projmirror (${SCHEMA_VERSION})`,
    );
  }
}

async function checkMirror(db: PgConnection, target: PgTarget): Promise<void> {
  const found = await meta(db, target.schema);
  if (found === undefined) {
    throw new UsageError(
      `--db ${target.display} holds no projmirror mirror; run projmirror sync first`,
    );
  }
  checkVersion(found, target);
}

async function prepareSchema(db: PgConnection, target: PgTarget): Promise<void> {
  await db.transaction(async () => {
    await db
      .prepare('SELECT pg_advisory_xact_lock(hashtext(?))')
      .get(`projmirror schema ${target.schema}`);
    const found = await meta(db, target.schema);
    if (found !== undefined) {
      checkVersion(found, target);
      await upgrade(db, Number(found.get('version')));
      return;
    }
    const tables = (await db
      .prepare(`SELECT count(*) FROM pg_tables WHERE schemaname = ?`)
      .pluck()
      .get(target.schema)) as number;
    if (tables > 0) {
      throw new UsageError(
        `${target.display} holds ${tables} tables but no projmirror mirror; refusing to change it`,
      );
    }
    // A schema made beforehand (owned by this user) needs no CREATE right on the database.
    const exists = await db
      .prepare('SELECT 1 FROM pg_namespace WHERE nspname = ?')
      .get(target.schema);
    if (exists === undefined) await db.exec(`CREATE SCHEMA "${target.schema}"`);
    await db.exec(readSchema(PG_SCHEMA_FILE));
  }, 'immediate');
}
