import { describe, expect, it } from 'vitest';
import {
  csvField,
  csvLines,
  jsonLines,
  MAX_CELL_WIDTH,
  renderTable,
} from '../../src/report/format.js';
import { parseCsv } from './csv.js';

describe('CSV', () => {
  it('quotes exactly the fields with a comma, quote, CR or LF, doubling quotes', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField('')).toBe('');
  });

  it('writes a header and CRLF records that read back field for field', () => {
    const rows = [
      { id: 't1', name: 'Frame walls, floor 1', note: 'He said "now"\r\nthen left', n: 3 },
      { id: 't2', name: null, note: '', n: 0.5 },
    ];
    const text = [...csvLines(['id', 'name', 'note', 'n'], rows)].join('');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['id', 'name', 'note', 'n'],
      ['t1', 'Frame walls, floor 1', 'He said "now"\r\nthen left', '3'],
      ['t2', '', '', '0.5'],
    ]);
  });

  it('writes the header alone when there are no rows', () => {
    expect([...csvLines(['a', 'b'], [])].join('')).toBe('a,b\r\n');
  });
});

describe('JSON', () => {
  it('is an array of objects, one per line, and [] when empty', () => {
    const rows = [
      { a: 1, b: 'x\ny' },
      { a: null, b: '' },
    ];
    const text = [...jsonLines(rows)].join('');
    expect(JSON.parse(text)).toEqual(rows);
    expect(text.split('\n')).toHaveLength(rows.length + 3);
    expect([...jsonLines([])].join('')).toBe('[]\n');
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
});
