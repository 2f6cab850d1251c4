/** The realtime channel: the WebSocket listener, message decoding and the refresh coalescer. */
export type { Change, RealtimeStatus } from './change.js';
export {
  Coalescer,
  DEFAULT_COALESCE_MS,
  REFRESH_PARTS,
  isSelfContained,
  type CoalescerOptions,
  type RefreshPart,
  type RefreshRequest,
} from './coalescer.js';
export { checkEvent } from './check-event.js';
export { decodeMessage } from './decode.js';
export { DEFAULT_PING_INTERVAL_MS, DEFAULT_PONG_TIMEOUT_MS } from './heartbeat.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_RECONNECT_BASE_MS,
  DEFAULT_RECONNECT_MAX_MS,
  DEFAULT_STABLE_CONNECTION_MS,
  DEFAULT_TOKEN_REFUSED_RETRY_MS,
  RealtimeListener,
  type RealtimeListenerOptions,
} from './listener.js';
export type { RealtimeLogger } from './problem-log.js';
