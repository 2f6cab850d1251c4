/**
 * The version of this installation, from the package's own package.json (beside `src/` in a
 * checkout, beside `dist/` once installed).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How many folders up from this module the package root may be (`dist/src/cli` is three). */
const MAX_LEVELS_UP = 4;

function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level <= MAX_LEVELS_UP; level++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'projmirror' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one folder up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

/** This installation's version, as package.json gives it. */
export const VERSION = readVersion();
