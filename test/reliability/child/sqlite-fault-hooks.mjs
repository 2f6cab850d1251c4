// Module hook: `import Database from 'better-sqlite3'` anywhere but in faulty-database.mjs itself
// resolves to faulty-database.mjs.
import { URL } from 'node:url';

const FAULTY = new URL('./faulty-database.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'better-sqlite3' && context.parentURL !== FAULTY) {
    return { url: FAULTY, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
