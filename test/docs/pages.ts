/**
 * The documentation as its tests read it: the README and every page of `docs/`, each found by its
 * path, and a section of any of them by its `## heading` (unique across the pages).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** One page of documentation: its path from the checkout's root and its text. */
export interface DocPage {
  path: string;
  text: string;
}

/** The README, then every Markdown page of `docs/` in name order. */
export function docPages(): DocPage[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({
    path,
    text: readFileSync(join(REPO, path), 'utf8'),
  }));
}

/** The README's text. */
export function readme(): string {
  return readFileSync(join(REPO, 'README.md'), 'utf8');
}

/** Every page's text, one after the other. */
export function allDocs(): string {
  return docPages()
    .map(({ text }) => text)
    .join('\n');
}

/** The text of `## heading` up to the next heading of that level or above, in one page. */
function sectionOf(text: string, heading: string): string | undefined {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return undefined;
  const next = /\n#{1,2} /.exec(text.slice(start + 1));
  return text.slice(start, next === null ? undefined : start + 1 + next.index);
}

/** The `## heading` section of whichever page has it; exactly one page must. */
export function docSection(heading: string): string {
  const found = docPages().flatMap(({ path, text }) => {
    const section = sectionOf(text, heading);
    return section === undefined ? [] : [{ path, section }];
  });
  if (found.length !== 1) {
    const where = found.map(({ path }) => path).join(', ') || 'no page';
    throw new Error(`"## ${heading}" should be in one page of the documentation, is in ${where}`);
  }
  return found[0]!.section;
}

/** The fenced blocks of `language` under `## heading`, in order. */
export function fencedBlocks(heading: string, language: string): string[] {
  const pattern = new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g');
  return [...docSection(heading).matchAll(pattern)].map((match) => match[1] ?? '');
}

/** The `sh` blocks under `## heading`, in order. */
export function shellBlocks(heading: string): string[] {
  return fencedBlocks(heading, 'sh');
}
