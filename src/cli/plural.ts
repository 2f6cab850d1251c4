/** Counts as people read them: `1 page`, `2 pages`, `4,360 tasks`. */

/** A count (with thousands separators) and its noun, in the singular for exactly one. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}
