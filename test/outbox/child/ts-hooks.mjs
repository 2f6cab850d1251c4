// Module hooks for child processes in tests: a relative `.js` import whose file does not exist
// resolves to the `.ts` beside it, and `.ts` files have their types stripped on load (by vite's
// Oxc transform, which vitest already brings).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, URL } from 'node:url';
import { transformWithOxc } from 'vite';

export async function resolve(specifier, context, nextResolve) {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
    const candidate = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    const plain = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(plain)) && existsSync(fileURLToPath(candidate))) {
      return { url: candidate.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const source = await readFile(fileName, 'utf8');
  const { code } = await transformWithOxc(source, fileName, { lang: 'ts', sourcemap: false });
  return { format: 'module', source: code, shortCircuit: true };
}
