/**
 * The realtime channel with several tokens: one connection per token (each hears the projects its
 * token sees), all feeding the same changes. Realtime counts as connected while every connection
 * is up: a token's projects heard by no one must be polled as if realtime were down.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/index.js';
import { RealtimeListener, type Change } from '../realtime/index.js';
import type { TokenCredential } from '../tokens/index.js';

/** Where and how to listen. */
export interface RealtimeLinksOptions {
  url: URL;
  tokens: readonly TokenCredential[];
  caFile?: string | undefined;
  clock: Clock;
  logger: Logger;
  onChange: (change: Change) => void;
  /** Told when the joined state (every connection up, or not) changes. */
  onStatus: (connected: boolean) => void;
}

/** One realtime listener per token, with their joined state. */
export class RealtimeLinks {
  private readonly listeners: RealtimeListener[];
  private readonly up = new Set<string>();
  private joined = false;

  constructor(private readonly options: RealtimeLinksOptions) {
    this.listeners = options.tokens.map(
      (token) =>
        new RealtimeListener({
          url: options.url,
          token: token.secret,
          ...(options.caFile ? { caFile: options.caFile } : {}),
          clock: options.clock,
          logger: options.logger.child({ tokenLabel: token.label }),
          onChange: options.onChange,
          onStatus: (status) => this.setStatus(token.label, status === 'connected'),
        }),
    );
  }

  /** True while every token's connection is up. */
  get connected(): boolean {
    return this.joined;
  }

  /** Starts every connection; they stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    for (const listener of this.listeners) listener.start(signal);
  }

  /** Closes every connection. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.listeners.map((listener) => listener.stop()));
  }

  private setStatus(label: string, connected: boolean): void {
    if (connected) this.up.add(label);
    else this.up.delete(label);
    const joined = this.up.size === this.listeners.length;
    if (joined === this.joined) return;
    this.joined = joined;
    this.options.onStatus(joined);
  }
}
