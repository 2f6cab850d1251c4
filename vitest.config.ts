import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Lets Node itself load the TypeScript sources (the store thread's worker runs outside vitest). */
const REGISTER = fileURLToPath(new URL('./test/fixtures/child/register.mjs', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    execArgv: ['--import', REGISTER],
  },
});
