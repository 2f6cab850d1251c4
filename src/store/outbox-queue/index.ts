/**
 * The outbox queue on the store thread: enqueueing, the state changes of an item (claim, done,
 * failed, requeue), the conflict check in the claim's transaction, the dry run, and the answer
 * written into the mirror. The engine on the main thread asks for them through the port.
 */
export * from './apply.js';
export * from './conflict.js';
export * from './dry-run.js';
export * from './item-texts.js';
export * from './queue.js';
export * from './transitions.js';
