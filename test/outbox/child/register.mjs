// Lets a child `node` process run this repository's TypeScript sources without a build:
// `node --import ./test/outbox/child/register.mjs test/outbox/child/run-cli.ts ...`.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
