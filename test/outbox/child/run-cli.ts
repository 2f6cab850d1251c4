/** The CLI from source, for tests that run it as a child process (see register.mjs). */
import { main } from '../../../src/cli/main.js';

await main(process.argv.slice(2));
