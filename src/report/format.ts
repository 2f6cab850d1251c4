/**
 * How rows become text: CSV (RFC 4180, written by csv-stringify), JSON (an array of objects, one
 * per line) and an aligned table for a terminal. CSV and JSON keep the views' column names and
 * values; the table is for people (labels, `-` for NULL, control characters escaped, long text
 * cut, widths as displayed).
 */
import { stringify } from 'csv-stringify/sync';
import stringWidth from 'string-width';
import { printable } from '../domain/index.js';
import type { Row, SqlValue } from '../store/port.js';

/** RFC 4180 line break. */
export const CSV_EOL = '\r\n';
/** The UTF-8 byte order mark, which tells Excel the file is UTF-8. */
export const UTF8_BOM = '\uFEFF';
/** Rows handed to the CSV writer at a time. */
export const CSV_BATCH_ROWS = 1_000;
/** The widest a table cell grows before it is cut with an ellipsis, in terminal columns. */
export const MAX_CELL_WIDTH = 40;
/** Spaces between table columns. */
const COLUMN_GAP = '  ';
const NULL_CELL = '-';

/** How CSV is written. */
export interface CsvOptions {
  /** Start with a UTF-8 byte order mark (Excel then reads accents and CJK right). */
  bom?: boolean;
}

/**
 * The lines of a CSV document: the header, then one record per row. A cell starting with `=`,
 * `+`, `-` or `@` (and a text cell starting with a tab or CR) is written with a leading `'`, so a
 * spreadsheet shows it as text instead of running it as a formula; negative numbers stay numbers.
 */
export async function* csvLines(
  columns: readonly string[],
  rows: Iterable<Row> | AsyncIterable<Row>,
  options: CsvOptions = {},
): AsyncGenerator<string> {
  const write = (records: SqlValue[][]) =>
    stringify(records, {
      record_delimiter: CSV_EOL,
      quote_record_delimiter: true,
      escape_formulas: true,
    });
  yield (options.bom ? UTF8_BOM : '') + write([[...columns]]);
  let batch: SqlValue[][] = [];
  for await (const row of rows) {
    batch.push(columns.map((column) => row[column] ?? null));
    if (batch.length >= CSV_BATCH_ROWS) {
      yield write(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield write(batch);
}

/**
 * Columns that hold a JSON array as text (SQLite has no array type): JSON output gives the array
 * itself, CSV and tables the text.
 */
export const JSON_ARRAY_COLUMNS: ReadonlySet<string> = new Set(['assignee_ids', 'assignee_names']);

/**
 * A row as JSON should carry it: a column declared `BOOLEAN` (stored 0/1) as `true`/`false`, a
 * JSON array column as the array; numbers stay numbers, text and NULL as they are.
 */
export function jsonRecord(
  row: Row,
  types: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === 'number' && types[column]?.toUpperCase() === 'BOOLEAN') {
      record[column] = value !== 0;
    } else if (typeof value === 'string' && JSON_ARRAY_COLUMNS.has(column)) {
      record[column] = parseArray(value);
    } else {
      record[column] = value;
    }
  }
  return record;
}

function parseArray(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : text;
  } catch {
    return text;
  }
}

/** The lines of NDJSON (JSON Lines): one object per line, each line ended, nothing around. */
export async function* ndjsonLines(
  rows: Iterable<unknown> | AsyncIterable<unknown>,
): AsyncGenerator<string> {
  for await (const row of rows) yield `${JSON.stringify(row)}\n`;
}

/** The pieces of a JSON array of objects, one object per line. */
export async function* jsonLines(
  rows: Iterable<unknown> | AsyncIterable<unknown>,
): AsyncGenerator<string> {
  let first = true;
  for await (const row of rows) {
    yield `${first ? '[\n' : ',\n'}${JSON.stringify(row)}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

/** The pieces of a document joined into one text. */
export async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of pieces) text += piece;
  return text;
}

/** A column of a table for people. */
export interface TableColumn {
  key: string;
  label: string;
  /** Right-aligned (numbers); default left. */
  right?: boolean;
}

/** Renders rows as an aligned text table with a header line; widths as a terminal shows them. */
export function renderTable(columns: readonly TableColumn[], rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(row[column.key] ?? null)));
  const widths = columns.map((column, i) =>
    Math.max(stringWidth(column.label), ...cells.map((line) => stringWidth(line[i] as string))),
  );
  const format = (values: readonly string[]) =>
    values
      .map((value, i) => {
        const padding = ' '.repeat((widths[i] as number) - stringWidth(value));
        return columns[i]?.right ? padding + value : value + padding;
      })
      .join(COLUMN_GAP)
      .trimEnd();
  const header = format(columns.map((column) => column.label));
  return [header, ...cells.map(format)].join('\n') + '\n';
}

/**
 * A cell as shown on one line: control characters escaped (the text comes from the service), cut
 * to `MAX_CELL_WIDTH` columns (a wide character counts two).
 */
function cellText(value: SqlValue): string {
  if (value === null) return NULL_CELL;
  // Escaping first keeps a newline or ESC visible; the head alone is escaped for huge text.
  const text = printable(String(value), MAX_CELL_WIDTH * 4);
  if (stringWidth(text) <= MAX_CELL_WIDTH) return text;
  let cut = '';
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    if (stringWidth(cut + segment) > MAX_CELL_WIDTH - 1) break;
    cut += segment;
  }
  return `${cut}…`;
}
