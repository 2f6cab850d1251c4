/**
 * Every relative link of the README and docs/ leads somewhere: to a file of the checkout and, with
 * a `#fragment`, to a heading of that page (as GitHub makes anchors of headings). And every path
 * of the checkout they name in code (`src/...`, `test/...`) exists, so that a file moved asks for
 * the pages that name it to follow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, REPO } from './pages.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, code blocks aside. */
function anchorsOf(text: string): Set<string> {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Paths of other repositories the pages cite (duckdb/duckdb-sqlite's, in docs/reporting.md). */
const ELSEWHERE = new Set([
  'src/sqlite/CMakeLists.txt',
  'src/sqlite_utils.cpp',
  'src/storage/sqlite_transaction.cpp',
  'test/sql/storage/fts.test',
]);

describe('the links of the README and docs/', () => {
  const pages = docPages();

  it('finds the pages and their links', () => {
    expect(pages.map(({ path }) => path)).toContain('docs/architecture.md');
    expect(anchorOf('The daemon (`projmirror run`)')).toBe('the-daemon-projmirror-run');
  });

  it('lead to a file of the checkout, and to a heading of it', () => {
    const broken: string[] = [];
    let links = 0;
    for (const { path, text } of pages) {
      const prose = text.replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        links += 1;
        const [file, fragment] = target!.split('#');
        const resolved = file === '' ? path : normalize(join(dirname(path), file!));
        if (!existsSync(join(REPO, resolved))) {
          broken.push(`${path}: ${target} (no file ${resolved})`);
        } else if (fragment !== undefined && resolved.endsWith('.md')) {
          const anchors = anchorsOf(readFileSync(join(REPO, resolved), 'utf8'));
          if (!anchors.has(fragment)) broken.push(`${path}: ${target} (no heading)`);
        }
      }
    }
    expect(links).toBeGreaterThan(30);
    expect(broken).toEqual([]);
  });

  it('and the paths of the checkout they name in code exist', () => {
    const named = new Set(
      docPages().flatMap(({ text }) =>
        [...text.matchAll(/`((?:src|test|bench|systemd|docs)\/[\w./*-]*)`/g)].map((m) => m[1]!),
      ),
    );
    expect(named.size).toBeGreaterThan(40);
    const missing = [...named].filter(
      (path) => !ELSEWHERE.has(path) && !existsSync(join(REPO, path)),
    );
    expect(missing).toEqual([]);
    // A cited path of another repository is still cited (a stale entry hides nothing).
    for (const path of ELSEWHERE) expect(named, path).toContain(path);
  });
});
