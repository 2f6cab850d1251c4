/**
 * docs/architecture.md's diagram against the source tree as it is when the test runs: every
 * folder of `src/` the diagram names exists, every top-level folder of `src/` is named, and so is
 * every subfolder of a folder whose subfolders it names. Every other path of `src/` the page
 * names exists too. Moving a folder then only asks for the page to follow.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './pages.js';

const PAGE = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');

/** The folders of `src/`, top level and one below, as `src/a/` and `src/a/b/`. */
function sourceFolders(): string[] {
  const below = (path: string) =>
    readdirSync(join(REPO, path), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${path}${entry.name}/`);
  return below('src/').flatMap((folder) => [folder, ...below(folder)]);
}

/** The page's mermaid diagram. */
function diagram(page: string): string {
  const block = /```mermaid\n([\s\S]*?)```/.exec(page);
  if (block === null) throw new Error('docs/architecture.md has no mermaid diagram');
  return block[1]!;
}

/** Every `src/...` path a text names, folders as `src/a/b/`, files as written. */
function namedPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/\bsrc\/(?:[\w-]+\/)*(?:[\w-]+\.\w+)?/g)].map((m) => m[0]))];
}

/** What the diagram gets wrong about `folders` (the tree's `src/a/` and `src/a/b/`). */
function diagramProblems(text: string, folders: readonly string[]): string[] {
  const problems: string[] = [];
  const named = namedPaths(text).filter((path) => path.endsWith('/') && path !== 'src/');
  for (const path of named) {
    if (!folders.includes(path)) problems.push(`names ${path}, which does not exist`);
  }
  const depth = (path: string) => path.split('/').length - 1;
  for (const folder of folders) {
    const parent = folder.replace(/[\w-]+\/$/, '');
    const required =
      depth(folder) === 2 ||
      named.some((path) => depth(path) === 3 && path.startsWith(parent) && parent !== 'src/');
    if (required && !named.includes(folder)) problems.push(`does not name ${folder}`);
  }
  for (const thread of ['main thread', 'store thread']) {
    if (!text.includes(thread)) problems.push(`does not show the ${thread}`);
  }
  return problems;
}

describe('docs/architecture.md', () => {
  const folders = sourceFolders();

  it('reads the tree: src/ has its top-level folders and some below', () => {
    expect(folders).toContain('src/store/');
    expect(folders.some((folder) => folder.split('/').length === 4)).toBe(true);
  });

  it('its diagram names every folder of src/, and only folders that exist', () => {
    expect(diagramProblems(diagram(PAGE), folders)).toEqual([]);
  });

  it('every other path of src/ it names exists', () => {
    const missing = namedPaths(PAGE).filter((path) => !existsSync(join(REPO, path)));
    expect(missing).toEqual([]);
  });

  it('the check finds a folder missing, a folder gone, and a subfolder left out', () => {
    const tree = ['src/a/', 'src/b/', 'src/b/x/', 'src/b/y/'];
    const text = 'subgraph main["main thread"]\nsubgraph s["store thread"]\n';
    expect(diagramProblems(`${text}src/a/ src/b/`, tree)).toEqual([]);
    expect(diagramProblems(`${text}src/a/`, tree)).toEqual(['does not name src/b/']);
    expect(diagramProblems(`${text}src/a/ src/b/ src/c/`, tree)).toEqual([
      'names src/c/, which does not exist',
    ]);
    expect(diagramProblems(`${text}src/a/ src/b/ src/b/x/`, tree)).toEqual([
      'does not name src/b/y/',
    ]);
    expect(diagramProblems('src/a/ src/b/', tree)).toEqual([
      'does not show the main thread',
      'does not show the store thread',
    ]);
  });
});
