import { describe, expect, it } from 'vitest';
import { isTimeZone, offsetSchedule, zonedDay } from '../../src/domain/index.js';
import { connectionOf } from '../../src/store/handle.js';
import { recordTimeZone, storedTimeZone } from '../../src/store/timezone.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, problemLines } from '../fixtures/cli.js';
import { tempDatabase, tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { zoneOffTheUtcDay } from './mirror.js';

describe('time zones', () => {
  it('knows IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('lists a zone offsets with their daylight saving changes, to the minute', () => {
    const schedule = offsetSchedule('Europe/Berlin', Date.UTC(2026, 0, 15), 1);
    expect(schedule.map((e) => [new Date(e.startsAt).toISOString(), e.offsetMinutes])).toEqual([
      ['2026-01-14T00:00:00.000Z', 60],
      ['2026-03-29T01:00:00.000Z', 120],
      ['2026-10-25T01:00:00.000Z', 60],
    ]);
    expect(offsetSchedule('Asia/Kolkata', Date.UTC(2026, 0, 15), 2)).toHaveLength(1);
    expect(zonedDay('Pacific/Kiritimati', Date.UTC(2026, 0, 15, 12))).toBe('2026-01-16');
  });

  it('records the zone in the mirror, where v_today takes today in it', async () => {
    const { db } = tempDatabase();
    const today = () => db.prepare('SELECT day, timezone FROM v_today').get();
    const utcDay = new Date().toISOString().slice(0, 10);
    expect(today()).toEqual({ day: utcDay, timezone: 'UTC' });
    const zone = zoneOffTheUtcDay();
    expect(await recordTimeZone(db, zone, Date.now())).toBe(true);
    expect(await recordTimeZone(db, zone, Date.now())).toBe(false);
    expect(await storedTimeZone(connectionOf(db))).toBe(zone);
    const local = zonedDay(zone, Date.now());
    expect(local).not.toBe(utcDay);
    expect(today()).toEqual({ day: local, timezone: zone });
    expect(await recordTimeZone(db, 'UTC', Date.now())).toBe(true);
    expect(today()).toEqual({ day: utcDay, timezone: 'UTC' });
    expect(db.prepare('SELECT count(*) FROM timezone_offsets').pluck().get()).toBe(0);
  });

  it('sync --timezone records the zone in the mirror for every reader', async () => {
    const token = 'glt_test_timezone_0123456789abcdef';
    const sim = await startTestSimulator({ projects: 1, tasks: [3], tokens: [token] });
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, token, { mode: 0o600 });
    const file = join(dir, 'mirror.sqlite');
    const args = ['sync', '--base-url', sim.baseUrl, '--token-file', tokenFile, '--db', file];
    const run = await runCli([...args, '--timezone', 'Asia/Kolkata']);
    expect(problemLines(run.stderr)).toEqual([]);
    expect(run.code).toBe(0);
    const read = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT timezone, utc_offset_minutes AS offset FROM v_today').get();
      } finally {
        db.close();
      }
    };
    expect(read()).toEqual({ timezone: 'Asia/Kolkata', offset: 330 });
    expect((await runCli(args)).code).toBe(0);
    expect(read()).toEqual({ timezone: 'Asia/Kolkata', offset: 330 });
    const bad = await runCli([...args, '--timezone', 'Nowhere/Land']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--timezone "Nowhere\/Land" is not an IANA time zone/);
  });
});
