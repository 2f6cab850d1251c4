import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  csvLines,
  joined,
  jsonLines,
  MAX_CELL_WIDTH,
  renderTable,
  UTF8_BOM,
} from '../../src/report/format.js';
import { parseCsv } from './csv.js';

const csv = (rows: Record<string, string | number | null>[], bom = false) =>
  joined(csvLines(Object.keys(rows[0] ?? { a: 1 }), rows, { bom }));

describe('CSV', () => {
  it('quotes exactly the fields with a comma, quote, CR or LF, doubling quotes', async () => {
    const text = await csv([
      {
        a: 'plain text',
        b: 'a, b',
        c: 'say "hi"',
        d: 'two\nlines',
        e: 'cr\rhere',
        f: null,
        g: 12.5,
        h: '',
      },
    ]);
    expect(text.split('\r\n')[1]).toBe(
      'plain text,"a, b","say ""hi""","two\nlines","cr\rhere",,12.5,',
    );
  });

  it('escapes cells that a spreadsheet would run as a formula, and leaves numbers alone', async () => {
    const text = await csv([
      { name: '=HYPERLINK("http://x","y")', b: '+1', c: '-2', d: '@SUM(A1)', e: -3, f: 'a=b' },
    ]);
    expect(parseCsv(text)[1]).toEqual([
      `'=HYPERLINK("http://x","y")`,
      "'+1",
      "'-2",
      "'@SUM(A1)",
      '-3',
      'a=b',
    ]);
  });

  it('starts with a UTF-8 byte order mark when asked, and only then', async () => {
    const rows = [{ name: 'Café 漢字' }];
    expect(await csv(rows, true)).toBe(`${UTF8_BOM}name\r\nCafé 漢字\r\n`);
    expect(await csv(rows)).toBe('name\r\nCafé 漢字\r\n');
  });

  it('writes a header and CRLF records that read back field for field', async () => {
    const rows = [
      { id: 't1', name: 'Frame walls, floor 1', note: 'He said "now"\r\nthen left', n: 3 },
      { id: 't2', name: null, note: '', n: 0.5 },
    ];
    const text = await joined(csvLines(['id', 'name', 'note', 'n'], rows));
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['id', 'name', 'note', 'n'],
      ['t1', 'Frame walls, floor 1', 'He said "now"\r\nthen left', '3'],
      ['t2', '', '', '0.5'],
    ]);
  });

  it('writes the header alone when there are no rows', async () => {
    expect(await joined(csvLines(['a', 'b'], []))).toBe('a,b\r\n');
  });
});

describe('JSON', () => {
  it('is an array of objects, one per line, and [] when empty', async () => {
    const rows = [
      { a: 1, b: 'x\ny' },
      { a: null, b: '' },
    ];
    const text = await joined(jsonLines(rows));
    expect(JSON.parse(text)).toEqual(rows);
    expect(text.split('\n')).toHaveLength(rows.length + 3);
    expect(await joined(jsonLines([]))).toBe('[]\n');
  });
});

describe('table', () => {
  it('aligns columns under their labels, numbers to the right, NULL as -', () => {
    const text = renderTable(
      [
        { key: 'name', label: 'NAME' },
        { key: 'n', label: 'N', right: true },
        { key: 'who', label: 'WHO' },
      ],
      [
        { name: 'Survey', n: 5, who: null },
        { name: 'Pour concrete', n: 120, who: 'Ann Lee' },
      ],
    );
    expect(text).toBe(
      ['NAME             N  WHO', 'Survey           5  -', 'Pour concrete  120  Ann Lee', ''].join(
        '\n',
      ),
    );
  });

  it('keeps each row on one line, escapes control characters and cuts long text', () => {
    const long = 'x'.repeat(100_000);
    const text = renderTable(
      [
        { key: 'a', label: 'A' },
        { key: 'b', label: 'B' },
      ],
      [{ a: 'two\nlines\u001b[2J', b: long }],
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`two\\nlines\\x1b[2J  ${'x'.repeat(MAX_CELL_WIDTH - 1)}…`);
    expect(text).not.toContain('\u001b');
  });

  it('lines up CJK and emoji by their display width', () => {
    const text = renderTable(
      [
        { key: 'name', label: 'NAME' },
        { key: 'n', label: 'N', right: true },
      ],
      [
        { name: '工事計画', n: 1 },
        { name: 'Pour 🚧 deck', n: 22 },
        { name: 'Ann', n: 333 },
        { name: '漢'.repeat(MAX_CELL_WIDTH), n: 4 },
      ],
    );
    const lines = text.trimEnd().split('\n');
    const widths = lines.map((line) => stringWidth(line));
    expect(new Set(widths).size).toBe(1);
    expect(lines[1]).toBe(`工事計画${' '.repeat(widths[0]! - 8 - 1)}1`);
    expect(stringWidth(lines[4]!.split('  ')[0]!)).toBeLessThanOrEqual(MAX_CELL_WIDTH);
    expect(lines[4]).toContain('…');
  });
});
