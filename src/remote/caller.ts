/**
 * The request policy around one exchange: every attempt first passes the gate and reports its
 * response to it; a 429 is waited out through the gate and retried; reads are retried on 5xx and
 * network errors with backoff; writes get one attempt (the outbox owns their retries).
 */
import { backoffDelayMs } from '../domain/backoff.js';
import type { RequestPurpose } from '../domain/index.js';
import { isRetryableNetworkError } from './network-errors.js';
import type { ResolvedOptions } from './options.js';
import { observationOf, statusError } from './responses.js';
import { parseRetryAfter } from './retry-after.js';
import { header, type Exchange, type RawResponse, type Transport } from './transport.js';

/** A request with its policy. */
export interface Call extends Exchange {
  purpose: RequestPurpose;
  /** Statuses besides 2xx (and 304 to a conditional GET) returned to the caller, like 404. */
  accept?: number[];
}

/** Sends calls under the gate, with retries. */
export class Caller {
  constructor(
    private readonly options: ResolvedOptions,
    private readonly transport: Transport,
  ) {}

  /** The response to `call`: a 2xx, a 304 to a conditional GET, or an accepted status. */
  async call(call: Call): Promise<RawResponse> {
    const read = call.route.method === 'GET';
    let failures = 0;
    let rateLimited = 0;
    for (;;) {
      await this.options.gate.acquire(call.purpose, call.signal);
      let response: RawResponse;
      try {
        response = await this.transport.exchange(call);
      } catch (error) {
        failures += 1;
        if (!read || !isRetryableNetworkError(error) || failures >= this.options.maxAttempts) {
          throw error;
        }
        await this.backoff(call, failures, error);
        continue;
      }
      const retryAfterMs = this.retryAfterOf(response);
      this.options.gate.observe(observationOf(response, retryAfterMs));
      if (this.answers(call, response)) return response;
      const error = statusError(response, call.context, {
        read,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
      if (response.status === 429 && rateLimited < this.options.maxRateLimitRetries) {
        rateLimited += 1;
        this.options.logger.debug({ route: call.name, retryAfterMs }, 'rate limited; waiting');
        continue;
      }
      failures += 1;
      if (!read || response.status < 500 || failures >= this.options.maxAttempts) throw error;
      await this.backoff(call, failures, error);
    }
  }

  private answers(call: Call, response: RawResponse): boolean {
    const { status } = response;
    if (status >= 200 && status < 300) return true;
    if (status === 304 && call.etag !== undefined) return true;
    return call.accept?.includes(status) ?? false;
  }

  private retryAfterOf(response: RawResponse): number | undefined {
    if (response.status !== 429) return undefined;
    const { clock, defaultRetryAfterMs } = this.options;
    return parseRetryAfter(header(response, 'retry-after'), clock.now(), defaultRetryAfterMs);
  }

  private async backoff(call: Call, failures: number, error: unknown): Promise<void> {
    const { backoff, clock, logger } = this.options;
    const delayMs = backoffDelayMs(failures, backoff);
    const reason = error instanceof Error ? error.message : String(error);
    // A retry that then succeeds is no news; one that fails is the call's error, told once.
    logger.debug({ route: call.name, attempt: failures, delayMs, reason }, 'retrying');
    await clock.sleep(delayMs, call.signal);
  }
}
