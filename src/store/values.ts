/** How JSON values of the service's records become typed columns and history values. */
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from '../domain/index.js';

/** A string column: the value when it is a string, else NULL (the whole record stays in `data`). */
export function textColumn(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** An ISO-8601 date-time, with an optional zone (none means UTC); a date alone is midnight UTC. */
const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The mirror's own form of a time, as `Date.prototype.toISOString` writes it (years 0-9999). */
const MIRROR_TIME = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * A timestamp column: an ISO-8601 time the service sent, normalized to the mirror's one form
 * (UTC with milliseconds, as `isoTime` writes); NULL when it is not such a time.
 */
export function timestampColumn(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // Most times arrive in the mirror's own form already: a pattern and the date's check tell,
  // without a parse (a parse and a format per row were 5% of a cold sync's CPU).
  if (value.length === 24 && MIRROR_TIME.test(value) && dateColumn(value.slice(0, 10)) !== null) {
    return value;
  }
  const match = ISO_TIME.exec(value.trim());
  if (match === null) return null;
  const text = value.trim().replace(' ', 'T');
  const ms = Date.parse(text.length > 10 && match[1] === undefined ? `${text}Z` : text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * A date column: a calendar date the service sent as 'YYYY-MM-DD', else NULL (a DATE column of
 * PostgreSQL holds nothing else; the whole record stays in `data`).
 */
export function dateColumn(value: unknown): string | null {
  // Digits and dashes read by character code: this runs twice for every task a page brings.
  if (typeof value !== 'string' || value.length !== 10) return null;
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH) return null;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  if (year < 0 || month < 1 || month > 12) return null;
  return day >= 1 && day <= daysIn(year, month) ? value : null;
}

const DASH = 45;
const DIGIT_0 = 48;

/** The number written in decimal digits from `from` to `to` of `text`; -1 if any is not one. */
function digitsAt(text: string, from: number, to: number): number {
  let number = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/** Days of each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The days of `month` (1-12) of `year` in the proleptic Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return MONTH_DAYS[month - 1]!;
}

/** A numeric column: the value when it is a finite number, else NULL. */
export function numberColumn(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A value as `task_history` stores it: text as is, numbers and booleans printed, NULL if absent. */
export function historyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A task's assignees as a set: the string ids of `assigneeIds`, unique and sorted. */
export function assigneesOf(task: JsonObject): string[] {
  const ids = task['assigneeIds'];
  if (!Array.isArray(ids)) return [];
  // Most lists come unique and sorted already: one copy, instead of a filter, a set and a sort.
  if (isSortedSet(ids)) return ids.slice() as string[];
  const unique = new Set(ids.filter((id): id is string => typeof id === 'string'));
  return [...unique].sort();
}

/** True for strings in strictly ascending order, as the default sort orders them. */
function isSortedSet(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== 'string') return false;
    if (i > 0 && !((items[i - 1] as string) < item)) return false;
  }
  return true;
}

/**
 * Whether the mirror's JSON text of a record (`held`) stands for the same JSON as `fresh`: the
 * same text, or the same value in another spelling (PostgreSQL's `jsonb` hands back its own key
 * order and spacing).
 */
export function sameJson(held: string | undefined, fresh: string): boolean {
  if (held === fresh) return true;
  if (held === undefined) return false;
  return isDeepStrictEqual(JSON.parse(held), JSON.parse(fresh));
}
