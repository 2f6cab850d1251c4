/** `Retry-After` as a delay: whole or fractional seconds, or an HTTP date. */

/** The delay `value` asks for at `now`, or `fallbackMs` when it is absent or unreadable. */
export function parseRetryAfter(
  value: string | undefined,
  now: number,
  fallbackMs: number,
): number {
  const text = value?.trim();
  if (!text) return fallbackMs;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return fallbackMs;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return fallbackMs;
  return Math.max(0, date - now);
}
