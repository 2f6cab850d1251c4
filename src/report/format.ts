/**
 * How rows become text: CSV (RFC 4180), JSON (an array of objects, one per line) and an aligned
 * table for a terminal. CSV and JSON keep the views' column names and values; the table is for
 * people (labels, `-` for NULL, control characters escaped, long text cut).
 */
import { printable } from '../domain/index.js';
import type { Row, SqlValue } from './views.js';

/** RFC 4180 line break. */
export const CSV_EOL = '\r\n';
/** The widest a table cell grows before it is cut with an ellipsis, in characters. */
export const MAX_CELL_WIDTH = 40;
/** Spaces between table columns. */
const COLUMN_GAP = '  ';
const NULL_CELL = '-';

/** One CSV field: NULL as empty, quoted when it holds a comma, quote, CR or LF. */
export function csvField(value: SqlValue): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, with its line break. */
export function csvLine(values: readonly SqlValue[]): string {
  return values.map(csvField).join(',') + CSV_EOL;
}

/** The lines of a CSV document: the header, then one record per row. */
export function* csvLines(columns: readonly string[], rows: Iterable<Row>): Generator<string> {
  yield csvLine(columns);
  for (const row of rows) yield csvLine(columns.map((column) => row[column] ?? null));
}

/** The pieces of a JSON array of objects, one object per line. */
export function* jsonLines(rows: Iterable<unknown>): Generator<string> {
  let first = true;
  for (const row of rows) {
    yield `${first ? '[\n' : ',\n'}${JSON.stringify(row)}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

/** A column of a table for people. */
export interface TableColumn {
  key: string;
  label: string;
  /** Right-aligned (numbers); default left. */
  right?: boolean;
}

/** Renders rows as an aligned text table with a header line. */
export function renderTable(columns: readonly TableColumn[], rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(row[column.key] ?? null)));
  const widths = columns.map((column, i) =>
    Math.max(column.label.length, ...cells.map((line) => (line[i] as string).length)),
  );
  const format = (values: readonly string[]) =>
    values
      .map((value, i) => {
        const width = widths[i] as number;
        return columns[i]?.right ? value.padStart(width) : value.padEnd(width);
      })
      .join(COLUMN_GAP)
      .trimEnd();
  const header = format(columns.map((column) => column.label));
  return [header, ...cells.map(format)].join('\n') + '\n';
}

/** A cell as shown: control characters escaped (the text comes from the service), then cut. */
function cellText(value: SqlValue): string {
  if (value === null) return NULL_CELL;
  return printable(String(value), MAX_CELL_WIDTH);
}
