/** The parts of the `pgpass` package's helper module we use (it ships no types). */
declare module 'pgpass/lib/helper.js' {
  /** One line's five fields. */
  export interface PgPassEntry {
    host: string;
    port: string;
    database: string;
    user: string;
    password: string;
  }
  /** What a line is matched against. */
  export interface PgPassConnInfo {
    host: string;
    port: number;
    database: string;
    user: string;
  }
  /** `PGPASSFILE`, else `~/.pgpass` (`%APPDATA%\postgresql\pgpass.conf` on Windows). */
  export function getFileName(env?: NodeJS.ProcessEnv): string;
  /** A line's fields, unescaped; null for a comment or a short line. */
  export function parseLine(line: string): PgPassEntry | null;
  export function isValidEntry(entry: PgPassEntry): boolean;
  /** True when the entry's host, port, database and user match (`*` matching any). */
  export function match(connInfo: PgPassConnInfo, entry: PgPassEntry): boolean;
}
