/**
 * A source of time, injected into every engine so tests can drive schedules in milliseconds.
 * Two readings: the wall clock, which NTP or a resumed VM may step forward or back, for instants
 * (the daily reconcile, the quota's reset, timestamps written down); and a monotonic clock,
 * which never steps, for intervals and backoffs. `sleep` runs on the monotonic one.
 */
export interface Clock {
  /** Milliseconds since the epoch, on the wall clock. */
  now(): number;
  /** Milliseconds on a clock that only moves forward, from an arbitrary origin. */
  monotonic(): number;
  /** Resolves after `ms` monotonic milliseconds; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
