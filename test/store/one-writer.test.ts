/**
 * One writer per kind of row (issue 36): a grep of `src/` finds the SQL that writes `tasks` and
 * `task_assignees` in one module, and the SQL that writes `task_history`, `task_pages`,
 * `seen_tasks` and `sync_state` in one module each. The schema files' change-feed triggers are
 * not TypeScript writers (`.sql` is not searched); a migration step rewriting old rows once
 * (`*-step.ts`) is not a writer of mirrored rows either.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** Every TypeScript file under `src/`, as a path from the repository's root. */
function sources(folder = join(ROOT, 'src')): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

const FILES = sources().map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

/** The files whose text holds SQL writing `table` (`verbs` of INSERT INTO, UPDATE, DELETE FROM). */
function writersOf(table: string, verbs = ['INSERT INTO', 'UPDATE', 'DELETE FROM']): string[] {
  const statement = new RegExp(`\\b(?:${verbs.join('|')})\\s+${table}\\b`, 'i');
  return FILES.filter(({ path, text }) => !path.endsWith('-step.ts') && statement.test(text))
    .map(({ path }) => path)
    .sort();
}

describe('one writer per table', () => {
  it('finds every insert into tasks in one module', () => {
    expect(writersOf('tasks', ['INSERT INTO'])).toEqual(['src/store/task-writer.ts']);
  });

  it('finds every write of tasks and their assignees in that module', () => {
    expect(writersOf('tasks')).toEqual(['src/store/task-writer.ts']);
    expect(writersOf('task_assignees')).toEqual(['src/store/task-writer.ts']);
  });

  it.each([
    ['task_history', 'src/store/task-history.ts'],
    ['task_pages', 'src/store/task-pages.ts'],
    ['task_page_refs', 'src/store/task-pages.ts'],
    ['task_page_originals', 'src/store/task-pages.ts'],
    ['seen_tasks', 'src/store/seen-tasks.ts'],
    ['sync_state', 'src/store/sync-state.ts'],
  ])('finds one writer of %s', (table, module) => {
    expect(writersOf(table)).toEqual([module]);
  });

  it('reads the tree it greps (the search is not vacuous)', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(writersOf('projects')).toContain('src/store/projects.ts');
  });
});
