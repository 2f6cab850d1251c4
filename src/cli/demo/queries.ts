/** How the demo shows the answers of the store's example queries (`src/store/example-queries.ts`). */
import type { ExampleAnswer } from '../../store/port.js';
import { table } from '../status/render.js';

/** Renders an example's answer (its title, SQL, column names and rows) as an aligned table. */
export function renderExample({ title, sql, columns, rows }: ExampleAnswer): string {
  const cells = rows.map((row) => row.map((value) => (value === null ? 'NULL' : String(value))));
  const body = rows.length === 0 ? '(no rows)' : table([columns, ...cells]);
  return `-- ${title}\n${sql};\n\n${body}`;
}
