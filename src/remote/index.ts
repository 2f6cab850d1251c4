/** The HTTP client of the service: `createHttpRemote`, its options, and the route overrides. */
export { createHttpRemote, HttpRemote, type HealthResult } from './http-remote.js';
export * from './options.js';
export { parseRouteOverrides, resolveRoutes } from './routes.js';
export { parseRetryAfter } from './retry-after.js';
