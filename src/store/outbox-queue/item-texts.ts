/**
 * What an outbox item's stored texts mean, read on both threads: its error line (`last_error`)
 * and its base (`base`, recorded by the trigger `outbox_base`). The port re-exports them.
 */

/** Why an item can never be sent, as stored in `last_error`: `code: message`. */
export function errorText(code: string, message: string): string {
  return `${code}: ${message}`;
}

/** What the trigger recorded: the record's presence and the values of the fields touched. */
export type Base = { record: 'absent' } | { record: 'present'; values: Record<string, unknown> };

/** The item's recorded base, or undefined when it has none (unchecked op, queued before v5). */
export function parseBase(text: string | null): Base | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as { record?: unknown; values?: unknown };
    if (value.record === 'absent') return { record: 'absent' };
    if (value.record === 'present' && isObject(value.values)) {
      return { record: 'present', values: value.values };
    }
  } catch {
    // Not ours: no base.
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
