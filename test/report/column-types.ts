/** The types map of docs/schema.md, and which tables are exempt from it (FTS5 storage). */
import { readFileSync } from 'node:fs';

const DOC = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');

/** The declared types the doc's "Column types" table allows. */
export function documentedTypes(): Set<string> {
  const section = DOC.slice(DOC.indexOf('\n## Column types'), DOC.indexOf('\n## Connecting'));
  return new Set([...section.matchAll(/^\| `([A-Z]+)` \|/gm)].map((m) => m[1]!));
}

/** SQLite's own tables behind the full-text index: its storage, not documented one by one. */
export function isFullTextShadow(name: string): boolean {
  return /^tasks_fts_(data|idx|config|content)$/.test(name);
}

/** The full-text index and its storage: FTS5 declares no column types. */
export function isFullTextIndex(name: string): boolean {
  return name === 'tasks_fts' || isFullTextShadow(name);
}
