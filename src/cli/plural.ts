/** Counts as people read them: `1 page`, `2 pages`, `4,360 tasks`. */

/** A count (with thousands separators) and its noun, in the singular for exactly one. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${grouped(count)} ${count === 1 ? singular : pluralForm}`;
}

/**
 * A count with a comma every three digits, as en-US writes it (`4,360`). A whole number is
 * written out here: `toLocaleString` loads the locale's number data on its first call, about
 * 30 ms of a command's CPU for its one summary line.
 */
export function grouped(count: number): string {
  const text = String(count);
  // Anything but a whole number (a fraction, an exponent, -0) as the locale writes it.
  if (!/^-?\d+$/.test(text) || Object.is(count, -0)) return count.toLocaleString('en-US');
  return text.replace(/\B(?=(\d{3})+$)/g, ',');
}
