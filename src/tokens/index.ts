/** Several tokens in one daemon: the token set, which token reads each project, and the routed remote. */
export * from './credentials.js';
export * from './routed-remote.js';
export * from './routing.js';
