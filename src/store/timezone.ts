/**
 * The mirror's time zone: the rows of `timezone_offsets` behind `v_today`, so that every reader
 * (a BI tool included) takes "today" and "overdue" in the zone the daemon was given. A reader
 * that may not write applies another zone to its own connection only.
 */
import { connectionOf, type MirrorHandle } from './handle.js';
import { DEFAULT_TIMEZONE, offsetSchedule, type ZoneOffset } from '../domain/index.js';
import { isoTime, type Db } from './database.js';
import { dialectOf } from './db.js';

/** A recorded schedule is written again once it is older than this, in days. */
export const TIMEZONE_REFRESH_DAYS = 365;
const MS_PER_DAY = 86_400_000;

const TABLE = `(
  starts_at      TIMESTAMP PRIMARY KEY,
  zone           TEXT NOT NULL,
  offset_minutes INTEGER NOT NULL
) WITHOUT ROWID`;

/** The zone the mirror's views take today in; UTC when none is recorded. */
export async function storedTimeZone(db: Db): Promise<string> {
  const table = dialectOf(db) === 'sqlite' ? 'main.timezone_offsets' : 'timezone_offsets';
  const zone = await db
    .prepare<[], string>(`SELECT zone FROM ${table} ORDER BY starts_at LIMIT 1`)
    .pluck()
    .get();
  return zone ?? DEFAULT_TIMEZONE;
}

/**
 * Makes `zone` the mirror's time zone from `nowMs` on (UTC: no row at all). Writes only when the
 * zone changes or its recorded offsets are a year old; true when it wrote.
 */
export async function recordTimeZone(
  mirror: MirrorHandle,
  zone: string,
  nowMs: number,
): Promise<boolean> {
  const db = connectionOf(mirror);
  return db.transaction(async () => {
    const first = await db
      .prepare<[], { zone: string; startsAt: string }>(
        `SELECT zone, starts_at AS startsAt FROM timezone_offsets ORDER BY starts_at LIMIT 1`,
      )
      .get();
    const fresh =
      first !== undefined &&
      Date.parse(first.startsAt) > nowMs - TIMEZONE_REFRESH_DAYS * MS_PER_DAY;
    if ((first?.zone ?? DEFAULT_TIMEZONE) === zone && (zone === DEFAULT_TIMEZONE || fresh)) {
      return false;
    }
    await db.prepare('DELETE FROM timezone_offsets').run();
    if (zone !== DEFAULT_TIMEZONE) await insertSchedule(db, '', zone, offsetSchedule(zone, nowMs));
    return true;
  }, 'immediate');
}

/**
 * Takes today in `zone` on this connection only, for a reader that may not write: a TEMP copy
 * of `timezone_offsets` and of every view, which SQLite looks up before the mirror's own. On
 * PostgreSQL the session's `projmirror.timezone` setting, which `v_today` reads, does the same.
 */
export async function applyTimeZoneToReader(
  mirror: MirrorHandle,
  zone: string,
  nowMs: number,
): Promise<void> {
  const db = connectionOf(mirror);
  if (dialectOf(db) === 'postgres') {
    await db.prepare(`SELECT set_config('projmirror.timezone', ?, false)`).get(zone);
    return;
  }
  await db.exec(`CREATE TEMP TABLE timezone_offsets ${TABLE}`);
  const schedule = zone === DEFAULT_TIMEZONE ? [] : offsetSchedule(zone, nowMs);
  await insertSchedule(db, 'temp.', zone, schedule);
  const views = await db
    .prepare<[], string>(`SELECT sql FROM main.sqlite_master WHERE type = 'view' ORDER BY rowid`)
    .pluck()
    .all();
  for (const sql of views) await db.exec(sql.replace(/^CREATE VIEW/i, 'CREATE TEMP VIEW'));
}

/** Writes a zone's offsets into `timezone_offsets` of `schema` ('' for the mirror's, 'temp.'). */
async function insertSchedule(
  db: Db,
  schema: '' | 'temp.',
  zone: string,
  schedule: ZoneOffset[],
): Promise<void> {
  const insert = db.prepare(
    `INSERT INTO ${schema}timezone_offsets (starts_at, zone, offset_minutes) VALUES (?, ?, ?)`,
  );
  for (const entry of schedule)
    await insert.run(isoTime(entry.startsAt), zone, entry.offsetMinutes);
}
