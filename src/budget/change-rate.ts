/**
 * How often an item of the service changes (a project, a task page, a side list), estimated from
 * what the daemon sees: polls that found a change or none after an interval (censored: a change
 * found says only that at least one happened), and events (exact: each is one change).
 *
 * The model (Cho and Garcia-Molina, "Estimating frequency of change", ACM TOIT 3(3), 2003): an
 * item changes as a Poisson process of rate r. A poll after an interval I finds no change with
 * probability e^(-rI). Their improved estimator for n polls at one regular interval I, X of which
 * found a change, is
 *
 *     r̂ = -log((n - X + 0.5) / (n + 0.5)) / I,
 *
 * which is the maximum-likelihood estimate with half an unchanged poll added (it stays finite when
 * every poll found a change, and it is nearly unbiased for small n). Our polls are irregular (the
 * plan's interval moves with the quota and the allocation), so we maximize the likelihood of the
 * intervals themselves. Its log is
 *
 *     L(r) = Σ_changed log(1 - e^(-r I_j)) - r Σ_unchanged I_j                    (polls)
 *          + E log r - r T                                                        (E events over T)
 *          + a log r - r b                                                        (Gamma prior)
 *
 * and its derivative, which falls strictly as r grows, is zero at the estimate:
 *
 *     Σ_changed I_j / (e^(r I_j) - 1) - Σ_unchanged I_j - 0.5 Ī + (E + a) / r - (T + b) = 0,
 *
 * with Cho and Garcia-Molina's half unchanged poll added at the mean interval Ī. With one interval
 * and no prior (a = b = 0) nor events it solves to their formula exactly. The prior, `a` changes
 * over an exposure `b`, keeps the estimate finite and near a sensible rate before any poll; events
 * are Poisson counts, so they enter as a Gamma-Poisson posterior would.
 *
 * Polls are kept as sufficient sums in buckets of intervals a quarter-octave wide (the equation is
 * solved at each bucket's mean interval, an error under 10% of the interval), so the state stays
 * small however long the history. Every weight decays with a half-life, so a project that goes
 * quiet or wakes up is noticed within a few half-lives; the prior does not decay, so an item with
 * no recent evidence returns to it. The functions are pure: time comes in as `at`, and the state is
 * plain JSON for the mirror to keep.
 */

/** Observations older than this count half as much as new ones. */
export const DEFAULT_RATE_HALF_LIFE_MS = 24 * 3_600_000;
/**
 * The prior's changes: a twenty-fourth of a change, so weak that one poll outweighs it (its
 * exposure counts like an hour of polls that found nothing).
 */
export const DEFAULT_PRIOR_CHANGES = 1 / 24;
/** The prior's exposure: with the changes above, one change a day until the item is seen. */
export const DEFAULT_PRIOR_EXPOSURE_MS = 3_600_000;
/** Buckets of poll intervals per doubling of the interval. */
const BUCKETS_PER_OCTAVE = 4;
/** Weights below this are dropped (a bucket last used many half-lives ago). */
const NEGLIGIBLE_WEIGHT = 1e-6;
/** Bisection steps on log r: the bracket below is e^35 wide, so 64 steps reach 1e-17 relative. */
const SOLVE_STEPS = 64;
/** The rates the solver searches between, per ms: one in 30,000 years to a thousand a second. */
const MIN_RATE_PER_MS = 1e-15;
const MAX_RATE_PER_MS = 1;

/** How the estimate weighs its evidence. */
export interface ChangeRateOptions {
  halfLifeMs?: number;
  priorChanges?: number;
  priorExposureMs?: number;
}

/** Polls whose intervals fall in one bucket: decayed weights and the weighted interval sum. */
export interface PollBucket {
  /** The bucket: round(log2(interval ms) x 4). */
  key: number;
  /** Polls (decayed). */
  polls: number;
  /** Of them, polls that found a change. */
  changed: number;
  /** Σ weight x interval, in ms. */
  intervalMs: number;
}

/** One item's evidence, decayed to `at`; plain JSON. */
export interface ChangeRateState {
  /** When the weights below were last decayed to (ms since the epoch). */
  at: number;
  buckets: PollBucket[];
  /** Changes known exactly (events), decayed. */
  events: number;
  /** Time over which those events were counted, decayed, in ms. */
  eventExposureMs: number;
}

/** A poll of the item: `intervalMs` since the previous look, and whether it found a change. */
export interface PollObservation {
  at: number;
  intervalMs: number;
  changed: boolean;
}

/** Events (exact changes) counted over `exposureMs` ending at `at`. */
export interface EventObservation {
  at: number;
  count: number;
  exposureMs: number;
}

/** An item nothing is known about yet (the estimate is the prior's). */
export function emptyChangeRate(at: number): ChangeRateState {
  return { at, buckets: [], events: 0, eventExposureMs: 0 };
}

/** The state with every weight decayed from its `at` to `at` (never backwards). */
export function decayTo(
  state: ChangeRateState,
  at: number,
  options: ChangeRateOptions = {},
): ChangeRateState {
  if (at <= state.at) return state;
  const halfLife = options.halfLifeMs ?? DEFAULT_RATE_HALF_LIFE_MS;
  const factor = Number.isFinite(halfLife) ? 2 ** (-(at - state.at) / halfLife) : 1;
  const buckets = state.buckets
    .map((b) => ({
      key: b.key,
      polls: b.polls * factor,
      changed: b.changed * factor,
      intervalMs: b.intervalMs * factor,
    }))
    .filter((b) => b.polls >= NEGLIGIBLE_WEIGHT);
  return {
    at,
    buckets,
    events: state.events * factor,
    eventExposureMs: state.eventExposureMs * factor,
  };
}

/** Adds one poll's outcome. A poll with no interval (the first look) says nothing and is ignored. */
export function observePoll(
  state: ChangeRateState,
  poll: PollObservation,
  options: ChangeRateOptions = {},
): ChangeRateState {
  if (!(poll.intervalMs > 0) || !Number.isFinite(poll.intervalMs)) return state;
  const next = decayTo(state, poll.at, options);
  const key = Math.round(Math.log2(poll.intervalMs) * BUCKETS_PER_OCTAVE);
  const buckets = next.buckets.filter((b) => b.key !== key);
  const old = next.buckets.find((b) => b.key === key);
  buckets.push({
    key,
    polls: (old?.polls ?? 0) + 1,
    changed: (old?.changed ?? 0) + (poll.changed ? 1 : 0),
    intervalMs: (old?.intervalMs ?? 0) + poll.intervalMs,
  });
  buckets.sort((a, b) => a.key - b.key);
  return { ...next, buckets };
}

/** Adds events: `count` changes known exactly over the `exposureMs` before `at`. */
export function observeEvents(
  state: ChangeRateState,
  events: EventObservation,
  options: ChangeRateOptions = {},
): ChangeRateState {
  const next = decayTo(state, events.at, options);
  return {
    ...next,
    events: next.events + Math.max(0, events.count),
    eventExposureMs: next.eventExposureMs + Math.max(0, events.exposureMs),
  };
}

/**
 * The estimated change rate, per millisecond, at `at`: the root of the likelihood equation of the
 * module comment, found by bisection on log r (the left side falls strictly in r).
 */
export function estimateRate(
  state: ChangeRateState,
  at: number,
  options: ChangeRateOptions = {},
): number {
  const s = decayTo(state, at, options);
  const a = options.priorChanges ?? DEFAULT_PRIOR_CHANGES;
  const b = options.priorExposureMs ?? DEFAULT_PRIOR_EXPOSURE_MS;
  const polls = s.buckets.reduce((sum, bucket) => sum + bucket.polls, 0);
  const intervalSum = s.buckets.reduce((sum, bucket) => sum + bucket.intervalMs, 0);
  const meanInterval = polls > 0 ? intervalSum / polls : 0;
  const exact = s.events + a;
  // Everything that pushes the rate down without depending on it: unchanged polls, Cho and
  // Garcia-Molina's half unchanged poll, the exposure of events and of the prior.
  let exposure = s.eventExposureMs + b + 0.5 * meanInterval;
  const changed: { weight: number; interval: number }[] = [];
  for (const bucket of s.buckets) {
    const interval = bucket.intervalMs / bucket.polls;
    exposure += (bucket.polls - bucket.changed) * interval;
    if (bucket.changed > 0) changed.push({ weight: bucket.changed, interval });
  }
  if (exposure <= 0) return exact > 0 || changed.length > 0 ? MAX_RATE_PER_MS : 0;
  if (exact <= 0 && changed.length === 0) return 0;
  const slope = (rate: number) =>
    changed.reduce((sum, c) => sum + (c.weight * c.interval) / Math.expm1(rate * c.interval), 0) +
    exact / rate -
    exposure;
  let low = Math.log(MIN_RATE_PER_MS);
  let high = Math.log(MAX_RATE_PER_MS);
  for (let step = 0; step < SOLVE_STEPS; step += 1) {
    const mid = (low + high) / 2;
    if (slope(Math.exp(mid)) > 0) low = mid;
    else high = mid;
  }
  return Math.exp((low + high) / 2);
}

/** Whether `value` is a `ChangeRateState` (as read back from the mirror). */
export function isChangeRateState(value: unknown): value is ChangeRateState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ChangeRateState>;
  const finite = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  return (
    finite(v.at) &&
    finite(v.events) &&
    finite(v.eventExposureMs) &&
    Array.isArray(v.buckets) &&
    v.buckets.every(
      (b: Partial<PollBucket>) =>
        typeof b.key === 'number' &&
        Number.isInteger(b.key) &&
        finite(b.polls) &&
        finite(b.changed) &&
        finite(b.intervalMs) &&
        (b.changed ?? 0) <= (b.polls ?? 0) + 1e-9,
    )
  );
}
