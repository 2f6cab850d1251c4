import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Lets Node itself load the TypeScript sources (the store thread's worker runs outside vitest). */
const REGISTER = fileURLToPath(new URL('./test/fixtures/child/register.mjs', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Three files at a time on two cores: most tests wait on sockets, timers and child
    // processes, not on a CPU, so a third worker fills the idle time (vitest's default on two cores
    // is one worker: 13 min serially, 8.6 min with three under load; README). A test
    // that spawns a dozen CLI processes takes up to 20 s then, so the limit has room above it.
    maxWorkers: 3,
    testTimeout: 45_000,
    hookTimeout: 45_000,
    pool: 'forks',
    execArgv: ['--import', REGISTER],
  },
});
