/** The pull engine: full passes, conditional pages, atomic commits, and the realtime apply paths. */
export { Mirror } from './mirror.js';
export * from './types.js';
export type { ListsPollResult, PagePollResult } from './page-poll.js';
