/**
 * Where one case's mirror lives: a SQLite file in a temporary directory (the default), or a
 * fresh schema of a PostgreSQL database (`?schema=` in the URL). The daemons and the harness
 * open it the same way on either engine; what differs is how motion on it is seen, how another
 * connection holds its lock (`holder`), and, on PostgreSQL, the leases a killed daemon leaves
 * behind (see `handedOver`) and the network between the daemons and the server (`network`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../../src/store/database.js';
import type { Db } from '../../../src/store/db.js';
import { sqliteConnection, sqliteOf } from '../../../src/store/sqlite-connection.js';
import { openConnection } from '../../fixtures/connection.js';
import type { HolderData } from '../../fixtures/lock-holder.js';
import type { TcpProxy } from '../../fixtures/tcp-proxy.js';

/** The mirror of one case. */
export interface CaseMirror {
  /** Where the daemons open it (`--db`): the file, or the URL (through `network`, if any). */
  readonly location: string;
  /** A connection of the harness's own, opened as a daemon opens it (created and migrated). */
  open(): Promise<Db>;
  /** Where another connection holding its lock connects (`LockHolder`). */
  readonly holder: HolderData;
  /** Between the daemons and a PostgreSQL server: a partition, then a heal (none on SQLite). */
  readonly network?: Pick<TcpProxy, 'partition' | 'heal'>;
  /** Changes with every commit on the mirror, whoever made it: the driver's sign of motion. */
  version(db: Db): Promise<string>;
  /** The lease time the daemons get (PostgreSQL only), in ms. */
  readonly leaseMs?: number;
  /**
   * True when no daemon but `holder` holds a live lease and `holder` holds every project it
   * listed (always true on SQLite, where there are no leases).
   */
  handedOver(db: Db, holder: string | undefined): Promise<boolean>;
  /** Removes what the case left, once every connection to it is closed. */
  dispose(): Promise<void>;
}

/** Makes a fresh mirror for each case. */
export type MirrorSource = () => CaseMirror;

/** A SQLite file per case, as the daemon's default mirror. */
export const sqliteMirrors: MirrorSource = () => {
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-convergence-'));
  return sqliteFileMirror(join(dir, 'mirror.sqlite'), () =>
    rmSync(dir, { recursive: true, force: true }),
  );
};

/** The SQLite mirror `file`; `remove` (if any) deletes it once the case is over. */
export function sqliteFileMirror(file: string, remove = () => {}): CaseMirror {
  return {
    location: file,
    open: () => Promise.resolve(sqliteConnection(openDatabase(file))),
    holder: { engine: 'sqlite', file },
    version: (db) =>
      Promise.resolve(String(sqliteOf(db)!.pragma('data_version', { simple: true }))),
    handedOver: () => Promise.resolve(true),
    dispose: () => Promise.resolve(remove()),
  };
}

/**
 * A fresh schema of the PostgreSQL database `databaseUrl` per case; the daemons hold their
 * projects by leases of `leaseMs` and reach the server through `proxy` (the harness directly).
 */
export function postgresMirrors(
  databaseUrl: string,
  leaseMs: number,
  proxy: TcpProxy,
): MirrorSource {
  let cases = 0;
  const throughProxy = new URL(databaseUrl);
  throughProxy.port = String(proxy.port);
  return () => {
    cases += 1;
    const schema = `convergence_${cases}`;
    const url = `${databaseUrl}?schema=${schema}`;
    return {
      location: `${throughProxy.href}?schema=${schema}`,
      open: () => openConnection({ db: url }, 'write'),
      holder: { engine: 'postgres', url: databaseUrl, schema },
      network: proxy,
      // The next transaction id: it moves with every transaction that wrote (reads take none).
      version: async (db) =>
        String(
          await db.prepare('SELECT pg_snapshot_xmax(pg_current_snapshot())::text').pluck().get(),
        ),
      leaseMs,
      handedOver: (db, holder) => handedOver(db, holder),
      dispose: async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA ${schema} CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  };
}

async function handedOver(db: Db, holder: string | undefined): Promise<boolean> {
  const othersHolding = (await db
    .prepare(
      'SELECT count(*) FROM project_leases WHERE expires_at > now() AND daemon_id IS DISTINCT FROM ?',
    )
    .pluck()
    .get(holder ?? null)) as number;
  if (othersHolding > 0 || holder === undefined) return othersHolding === 0;
  const listedNotHeld = (await db
    .prepare(
      `SELECT count(*) FROM daemons AS d, unnest(d.projects) AS listed(project_id)
       WHERE d.id = ? AND NOT EXISTS (
         SELECT 1 FROM project_leases AS l
         WHERE l.project_id = listed.project_id AND l.daemon_id = d.id AND l.expires_at > now())`,
    )
    .pluck()
    .get(holder)) as number;
  return listedNotHeld === 0;
}
