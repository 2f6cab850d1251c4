/** A strict RFC 4180 reader for the tests: CRLF records, quoted fields, doubled quotes. */

/** Parses CSV text into records of fields; throws on anything RFC 4180 does not allow. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i += 1;
          break;
        } else {
          field += text[i];
          i += 1;
        }
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${text[i]} at ${i}`);
        field += text[i];
        i += 1;
      }
    }
    record.push(field);
    if (text[i] === ',') {
      i += 1;
    } else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else if (i < text.length) {
      throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
    }
  }
  if (record.length > 0) throw new Error('last record lacks its CRLF');
  return records;
}

/** CSV records as objects keyed by the header; empty fields become null. */
export function csvObjects(text: string): Record<string, string | null>[] {
  const [header, ...records] = parseCsv(text);
  if (header === undefined) throw new Error('no header');
  return records.map((fields) =>
    Object.fromEntries(header.map((column, i) => [column, fields[i] === '' ? null : fields[i]!])),
  );
}

/** A row from SQLite as CSV text reads back: numbers printed, NULL empty. */
export function asCsvRow(row: Record<string, unknown>): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [key, value === null ? null : String(value)]),
  );
}
