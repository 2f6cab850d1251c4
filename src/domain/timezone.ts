/**
 * Time zones for what "today" means: IANA names, checked by the platform's Intl, and a zone's
 * offsets from UTC over the years ahead (daylight saving included), which the mirror records so
 * that SQL, which knows no zones, can tell today's date in that zone.
 */

/** The zone of "today" when none is set. */
export const DEFAULT_TIMEZONE = 'UTC';
/** How far ahead a recorded zone's offsets reach, in years. */
export const OFFSET_SCHEDULE_YEARS = 5;

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/** From `startsAt` (ms since the epoch) on, the zone is `offsetMinutes` ahead of UTC. */
export interface ZoneOffset {
  startsAt: number;
  offsetMinutes: number;
}

/** True when the platform knows `zone` as a time zone (an IANA name such as Europe/Berlin). */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offsets from `fromMs` (a day earlier, for clocks a little behind) for `years`. */
export function offsetSchedule(
  zone: string,
  fromMs: number,
  years = OFFSET_SCHEDULE_YEARS,
): ZoneOffset[] {
  const offsetAt = offsetReader(zone);
  const start = fromMs - MS_PER_DAY;
  const end = fromMs + years * 365.25 * MS_PER_DAY;
  const schedule: ZoneOffset[] = [{ startsAt: start, offsetMinutes: offsetAt(start) }];
  for (let day = start; day < end; day += MS_PER_DAY) {
    const before = offsetAt(day);
    if (offsetAt(day + MS_PER_DAY) === before) continue;
    // The change lies within this day: find its minute by halving.
    let low = day;
    let high = day + MS_PER_DAY;
    while (high - low > MS_PER_MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MS_PER_MINUTE) * MS_PER_MINUTE;
      if (offsetAt(middle) === before) low = middle;
      else high = middle;
    }
    schedule.push({ startsAt: high, offsetMinutes: offsetAt(high) });
  }
  return schedule;
}

/** The calendar day (`YYYY-MM-DD`) in `zone` at `ms`. */
export function zonedDay(zone: string, ms: number): string {
  return new Date(ms + offsetReader(zone)(ms) * MS_PER_MINUTE).toISOString().slice(0, 10);
}

/** A function telling the zone's offset from UTC, in minutes, at an instant. */
function offsetReader(zone: string): (ms: number) => number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  return (ms) => {
    const at = Math.floor(ms / MS_PER_MINUTE) * MS_PER_MINUTE;
    const part = (type: string) =>
      Number(format.formatToParts(at).find((p) => p.type === type)?.value);
    const local = Date.UTC(
      part('year'),
      part('month') - 1,
      part('day'),
      part('hour'),
      part('minute'),
    );
    return Math.round((local - at) / MS_PER_MINUTE);
  };
}
