/** A view's row as the JSON outputs must carry it, spelled out apart from the code under test. */

/** The view columns SQLite declares BOOLEAN (stored 0/1). */
const BOOLEAN_COLUMNS = ['active', 'is_done', 'is_overdue', 'is_blocking'];
/** The columns holding a JSON array as text. */
const ARRAY_COLUMNS = ['assignee_ids', 'assignee_names'];

/** `row` with its booleans as `true`/`false` and its JSON array columns as arrays. */
export function asJsonRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => {
      if (BOOLEAN_COLUMNS.includes(column) && typeof value === 'number')
        return [column, value !== 0];
      if (ARRAY_COLUMNS.includes(column) && typeof value === 'string') {
        return [column, JSON.parse(value) as unknown];
      }
      return [column, value];
    }),
  );
}
