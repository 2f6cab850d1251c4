/** SIGINT and SIGTERM as an AbortSignal for one-shot commands: the work in hand stops cleanly. */

/** An AbortSignal that aborts on SIGINT or SIGTERM until `dispose()`. */
export function abortOnSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
    },
  };
}
