/**
 * The store's statements as PostgreSQL takes them. The repositories write one SQL for both
 * engines, in the subset both speak (`ON CONFLICT`, CTEs, window functions); what differs only in
 * spelling is rewritten here, once: SQLite's `?` and `@name` parameters become `$1, $2...`, and
 * a camel-case alias (`AS projectId`), which PostgreSQL would fold to lower case, is quoted.
 * String literals, quoted identifiers, comments and dollar-quoted bodies are left alone.
 */

/** A statement in PostgreSQL's spelling, and how to lay out its values. */
export interface PgStatementText {
  text: string;
  /** For named parameters, the name of each `$n` in order; empty for positional ones. */
  names: string[];
  /** How many `$n` the text has. */
  count: number;
}

const CAMEL_ALIAS = /\bAS\s+([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\b/g;

/** Rewrites one statement (or a script, which then takes no parameters). */
export function toPostgres(sql: string): PgStatementText {
  const names: string[] = [];
  let count = 0;
  let out = '';
  let plain = '';
  const flush = () => {
    out += plain.replace(CAMEL_ALIAS, 'AS "$1"');
    plain = '';
  };
  for (let i = 0; i < sql.length;) {
    const rest = sql.slice(i);
    const skipped = skipQuoted(rest);
    if (skipped > 0) {
      flush();
      out += rest.slice(0, skipped);
      i += skipped;
      continue;
    }
    const char = sql[i]!;
    if (char === '?') {
      count += 1;
      plain += `$${count}`;
      i += 1;
      continue;
    }
    const named = /^@([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
    if (named !== null) {
      const name = named[1]!;
      let index = names.indexOf(name);
      if (index < 0) {
        names.push(name);
        index = names.length - 1;
        count = names.length;
      }
      plain += `$${index + 1}`;
      i += named[0].length;
      continue;
    }
    plain += char;
    i += 1;
  }
  flush();
  return { text: out, names, count };
}

/** The length of a quoted run or comment at the start of `text`, 0 when there is none. */
function skipQuoted(text: string): number {
  const first = text[0];
  if (first === "'" || first === '"') {
    for (let i = 1; i < text.length; i++) {
      if (text[i] !== first) continue;
      if (text[i + 1] === first) i += 1;
      else return i + 1;
    }
    return text.length;
  }
  if (text.startsWith('--')) {
    const end = text.indexOf('\n');
    return end < 0 ? text.length : end;
  }
  if (text.startsWith('/*')) {
    const end = text.indexOf('*/', 2);
    return end < 0 ? text.length : end + 2;
  }
  const dollar = /^\$([A-Za-z_]*)\$/.exec(text);
  if (dollar !== null) {
    const end = text.indexOf(dollar[0], dollar[0].length);
    return end < 0 ? text.length : end + dollar[0].length;
  }
  return 0;
}

/** The values for `$1...$n` from better-sqlite3-style arguments: positional, or one object. */
export function bindValues(statement: PgStatementText, args: readonly unknown[]): unknown[] {
  if (statement.names.length > 0) {
    const named = (args[0] ?? {}) as Record<string, unknown>;
    return statement.names.map((name) => toPgValue(named[name]));
  }
  const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  return flat.slice(0, statement.count).map(toPgValue);
}

/** A `\u` escape of half a surrogate pair without its other half, which `jsonb` refuses. */
const LONE_SURROGATE_ESCAPE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;

/**
 * A value as PostgreSQL can store it (an array's elements alike): `undefined` is NULL; NUL characters, which PostgreSQL
 * text cannot hold, become U+FFFD, and so do the escapes `jsonb` refuses in JSON text (`\u0000`
 * and half a surrogate pair), so that a record the service sent never stops a pass.
 */
function toPgValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(toPgValue);
  if (typeof value !== 'string') return value;
  if (!value.includes('\0') && !value.includes('\\u')) return value;
  return value
    .replaceAll('\0', '\uFFFD')
    .replaceAll('\\u0000', '\\ufffd')
    .replace(LONE_SURROGATE_ESCAPE, '\\ufffd');
}
