/** The domain: entity types, errors, time and the seams to the service. Imports nothing of ours. */
export * from './clock.js';
export * from './errors.js';
export * from './events.js';
export * from './records.js';
export * from './remote.js';
export * from './routes.js';
export * from './tls.js';
export * from './manual-clock.js';
export * from './wall-step.js';
export * from './validate.js';
export * from './changes.js';
export * from './timezone.js';
export * from './claims.js';
export * from './progress-watch.js';
