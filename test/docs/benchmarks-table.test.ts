/**
 * The README's table of benchmark figures is a summary of docs/benchmarks.md's: every figure with
 * a target is in both, each number the README gives is the page's, and a target is missed in one
 * exactly when it is missed in the other.
 */
import { describe, expect, it } from 'vitest';
import { docSection } from './pages.js';

/** The rows of the first table of a section, by their first cell (the benchmark's number). */
function rows(section: string): Map<string, string[]> {
  const lines = section.split('\n').filter((line) => /^\| \d+[a-z]? \|/.test(line));
  return new Map(
    lines.map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
      return [cells[1]!, cells.slice(2, -1)];
    }),
  );
}

const NUMBER = /\d[\d,]*(\.\d+)?/g;
/** A target missed, as bench/figure.ts writes it (not "met, narrowly (one run in six missed)"). */
const MISSED = /\*\*missed\*\*/;

describe("the README's benchmark figures", () => {
  const readme = rows(docSection('Benchmarks'));
  const page = rows(docSection('Current figures'));

  it('finds both tables', () => {
    expect(readme.size).toBeGreaterThan(10);
    expect(page.size).toBeGreaterThan(readme.size);
  });

  it("has every figure with a target, each number as the page's, missed as the page says", () => {
    const problems: string[] = [];
    for (const [id, cells] of page) {
      const target = cells.at(-1)!;
      const ours = readme.get(id);
      if (ours === undefined) {
        if (!target.startsWith('none')) problems.push(`${id}: not in the README`);
        continue;
      }
      const [, figure, ourTarget] = ours;
      const theirs = cells.join(' ');
      for (const [number] of figure!.matchAll(NUMBER)) {
        if (!theirs.includes(number)) problems.push(`${id}: ${number} is not the page's`);
      }
      if (MISSED.test(ourTarget!) !== MISSED.test(target)) {
        problems.push(`${id}: missed in one table only`);
      }
    }
    for (const id of readme.keys()) if (!page.has(id)) problems.push(`${id}: not on the page`);
    expect(problems).toEqual([]);
  });

  it('names the missed targets above the table', () => {
    const missed = [...readme].filter(([, cells]) => MISSED.test(cells.at(-1)!)).map(([id]) => id);
    const section = docSection('Benchmarks');
    if (missed.length === 0) {
      expect(section).toMatch(/Every target is met/);
      return;
    }
    // "One target is missed: **8**." or "Targets missed: **1**, **8**."
    const sentence = /(?:One target is|Targets) missed: ([^.]*)\./.exec(section);
    expect(sentence).not.toBeNull();
    expect([...sentence![1]!.matchAll(/\*\*(\w+)\*\*/g)].map((m) => m[1])).toEqual(missed);
  });
});
