/**
 * One try of one item: claim it, send it, and turn the answer (or the error) into its next state.
 * The classification of errors lives here: what is retried, what is waited out, what fails.
 */
import type { Logger } from 'pino';
import {
  BudgetExhaustedError,
  errorLine,
  isDiskFull,
  isTransientStoreError,
  MalformedResponseError,
  RateLimitedError,
  RemoteStatusError,
  type CallOptions,
  type Clock,
  type RecordChange,
  type RemoteApi,
  type WriteRequest,
} from '../domain/index.js';
import type { Store } from '../store/port.js';
import type { OutboxItem } from './item.js';
import { isCreateOp, isDeleteOp, isOutboxOp } from '../domain/outbox-ops.js';
import type { RunRetries } from './retries.js';
import { errorText, parseBase } from '../store/port.js';

/** What the pusher does with an item the service changed since it was queued (`--on-conflict`). */
export type { OnConflict } from '../store/port.js';
import type { OnConflict } from '../store/port.js';

/** The ways `--on-conflict` may be given. */
export const ON_CONFLICT_CHOICES: readonly OnConflict[] = ['hold', 'overwrite'];

/** The shortest wait after a 429, whatever `Retry-After` said. */
export const MIN_RATE_LIMIT_WAIT_MS = 1_000;

/**
 * What became of one try. `sent` is true when a request went out; a `retry` is tried again in this
 * run when `withinRun`, else left for a later one.
 */
export type Outcome =
  | { kind: 'done' | 'failed' | 'gone' | 'aborted' | 'conflict'; sent: boolean }
  | { kind: 'retry'; sent: boolean; withinRun: boolean }
  | { kind: 'wait'; sent: boolean; untilMs: number; rateLimited: boolean };

/** What the pusher tells of a full disk: a write refused for it, and an answer recorded. */
export interface DiskReports {
  refused(error: unknown): void;
  wrote(): void;
}

/** What one try needs from the pusher. */
export interface SendContext {
  /** The outbox's units of work (claims, with the projects this pusher sends for, are the store's). */
  outbox: Store['outbox'];
  remote: RemoteApi;
  clock: Clock;
  logger: Logger;
  retries: RunRetries;
  signal: AbortSignal | undefined;
  /** `hold` checks an item's base before sending it; `overwrite` sends it as queued. */
  onConflict: OnConflict;
  /** True when the mirror of the project is current (see `freshness.ts`): no re-read needed. */
  isFresh: (projectId: string) => boolean;
  /** Writes what a re-read of an item's target found into the mirror. */
  mirror: Pick<Store['mirror'], 'applyFetched'>;
  /** Told when recording an answer meets a full disk, and when it is recorded after that. */
  disk?: DiskReports;
  /** Told of each re-read of a target (one call, however many requests it takes). */
  onReread?: () => void;
  /**
   * Told of each HTTP request sent for the item: the re-read, the write, the listing a token's
   * choice may need, and every retry of each (`CallOptions.onSent`).
   */
  onSent?: () => void;
}

/** Tries `head` once; never throws for anything the service or the network does. */
export async function sendItem(head: OutboxItem, ctx: SendContext): Promise<Outcome> {
  if (ctx.onConflict === 'hold' && needsReread(head, ctx)) {
    const stopped = await reread(head, ctx);
    if (stopped !== undefined) return stopped;
  }
  const claim = await ctx.outbox.claim(head.id, ctx.clock.now(), { onConflict: ctx.onConflict });
  if (claim.kind === 'gone') return { kind: 'gone', sent: false };
  const { item } = claim;
  const log = ctx.logger.child({ item: item.id, op: item.op, projectId: item.projectId });
  if (claim.kind === 'failed') {
    log.warn({ error: claim.error }, 'outbox item failed before sending');
    return { kind: 'failed', sent: false };
  }
  if (claim.kind === 'conflict') {
    log.warn({ error: claim.error }, 'outbox item held: the service changed what it changes');
    return { kind: 'conflict', sent: false };
  }
  try {
    const request = await withToken(item, claim.request, ctx);
    if ('refused' in request) {
      await ctx.outbox.markFailed(
        item,
        errorText('token_unavailable', request.refused),
        ctx.clock.now(),
      );
      log.warn({ error: request.refused }, 'outbox item failed: no token can send it');
      return { kind: 'failed', sent: false };
    }
    const response = await ctx.remote.send(request, callOf(ctx));
    const note = await recorded(ctx, () =>
      ctx.outbox.markDone(item, response, ctx.clock.now(), true),
    );
    if (note) log.warn({ status: response.status, note }, 'outbox item done; answer not mirrored');
    else log.info({ attempts: item.attempts, status: response.status }, 'outbox item done');
    return { kind: 'done', sent: true };
  } catch (error) {
    return await settleError(item, error, ctx, log);
  }
}

/** The options of every call a try makes: its signal, the push's purpose, and the request count. */
function callOf(ctx: SendContext): CallOptions {
  return {
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    purpose: 'push',
    ...(ctx.onSent ? { onSent: ctx.onSent } : {}),
  };
}

/** True when the item is checked and the mirror's copy of its target may be older than it. */
function needsReread(item: OutboxItem, ctx: SendContext): boolean {
  const base = parseBase(item.base);
  return base !== undefined && base.record === 'present' && !ctx.isFresh(item.projectId);
}

/**
 * Reads the item's target again (one budgeted request) into the mirror, so the check compares
 * with the service's values of now. Undefined when done; else what the push does with the item,
 * which stays pending (nothing was claimed).
 */
async function reread(item: OutboxItem, ctx: SendContext): Promise<Outcome | undefined> {
  const call = callOf(ctx);
  const { projectId } = item;
  try {
    ctx.onReread?.();
    if (item.op === 'dependency.set' || item.op === 'resource.update') {
      const dependencies = item.op === 'dependency.set';
      const records = dependencies
        ? await ctx.remote.listDependencies(projectId, call)
        : await ctx.remote.listResources(projectId, call);
      const type = dependencies ? 'dependency' : 'resource';
      const route = dependencies ? 'listDependencies' : 'listResources';
      await ctx.mirror.applyFetched(
        projectId,
        [{ op: 'replace', type, projectId, records }],
        route,
      );
      return undefined;
    }
    const id = item.targetId ?? '';
    const task = await ctx.remote.getTask(id, { ...call, projectId });
    const change: RecordChange =
      task === null
        ? { op: 'remove', type: 'task', projectId, id }
        : { op: 'put', type: 'task', projectId, record: task };
    await ctx.mirror.applyFetched(projectId, [change], 'getTask');
    return undefined;
  } catch (error) {
    return rereadFailed(item, error, ctx);
  }
}

function rereadFailed(item: OutboxItem, error: unknown, ctx: SendContext): Outcome {
  if (ctx.signal?.aborted) return { kind: 'aborted', sent: true };
  const log = ctx.logger.child({ item: item.id, op: item.op, projectId: item.projectId });
  if (error instanceof RateLimitedError || error instanceof BudgetExhaustedError) {
    const now = ctx.clock.now();
    const untilMs =
      error instanceof RateLimitedError
        ? now + Math.max(MIN_RATE_LIMIT_WAIT_MS, error.retryAfterMs)
        : error.resumeAt;
    const rateLimited = error instanceof RateLimitedError;
    return { kind: 'wait', sent: rateLimited, untilMs, rateLimited };
  }
  log.warn({ error: errorLine(error) }, 'cannot read the target of an outbox item again');
  return { kind: 'retry', sent: false, withinRun: false };
}

/**
 * The request with the token it goes out with, recorded on the item before it is sent, so that
 * every retry (after a crash too) goes with the same token and its `Idempotency-Key` keeps its
 * scope: the label the item holds, else the remote's choice. A remote of one unnamed token
 * (no `writeToken`) sends as it is.
 */
async function withToken(
  item: OutboxItem,
  request: WriteRequest,
  ctx: SendContext,
): Promise<WriteRequest | { refused: string }> {
  if (ctx.remote.writeToken === undefined) return request;
  const choice = await ctx.remote.writeToken(item.projectId, item.tokenLabel, callOf(ctx));
  if ('refused' in choice) return choice;
  if (choice.label !== item.tokenLabel) await ctx.outbox.setToken(item.id, choice.label);
  return { ...request, token: choice.label };
}

/** Decides the next state of an item whose try threw `error`. */
async function settleError(
  item: OutboxItem,
  error: unknown,
  ctx: SendContext,
  log: Logger,
): Promise<Outcome> {
  const now = ctx.clock.now();
  if (ctx.signal?.aborted) {
    await ctx.outbox.requeue(item.id, { error: null, dueAt: null, uncount: false }, now);
    return { kind: 'aborted', sent: true };
  }
  if (error instanceof RateLimitedError || error instanceof BudgetExhaustedError) {
    const untilMs =
      error instanceof RateLimitedError
        ? now + Math.max(MIN_RATE_LIMIT_WAIT_MS, error.retryAfterMs)
        : error.resumeAt;
    await ctx.outbox.requeue(
      item.id,
      { error: errorLine(error), dueAt: untilMs, uncount: true },
      now,
    );
    log.warn({ until: new Date(untilMs).toISOString() }, 'outbox push paused by the budget');
    return {
      kind: 'wait',
      sent: error instanceof RateLimitedError,
      untilMs,
      rateLimited: error instanceof RateLimitedError,
    };
  }
  if (error instanceof RemoteStatusError && !error.retryable) {
    if (error.status === 404 && isOutboxOp(item.op) && isDeleteOp(item.op) && item.attempts > 1) {
      // An earlier try deleted it and its answer was lost: the edit has taken effect.
      return await completeLostDelete(item, ctx, log);
    }
    const code = error.serviceCode ?? `http_${error.status}`;
    await ctx.outbox.markFailed(item, errorText(code, error.message), now);
    log.warn({ status: error.status, code }, 'outbox item refused by the service');
    return { kind: 'failed', sent: true };
  }
  if (error instanceof MalformedResponseError && isOutboxOp(item.op) && !isCreateOp(item.op)) {
    // A 2xx whose body is unusable: the edit took effect. Resending it would apply it again.
    await recorded(ctx, () => ctx.outbox.markDone(item, { status: 200, body: null }, now, false));
    log.warn({ error: errorLine(error) }, 'outbox item done; the answer was malformed');
    return { kind: 'done', sent: true };
  }
  // A create is resent with its key: the service replays its first answer.
  const { dueAt, withinRun } = ctx.retries.failed(item, now);
  await ctx.outbox.requeue(item.id, { error: errorLine(error), dueAt, uncount: false }, now);
  log.warn(
    { attempts: item.attempts, retryInMs: dueAt - now, withinRun, error: errorLine(error) },
    withinRun ? 'outbox item will be retried' : 'outbox item left pending for a later run',
  );
  return { kind: 'retry', sent: true, withinRun };
}

async function completeLostDelete(
  item: OutboxItem,
  ctx: SendContext,
  log: Logger,
): Promise<Outcome> {
  const now = ctx.clock.now();
  await recorded(ctx, () => ctx.outbox.markDone(item, { status: 404, body: null }, now, true));
  log.info({ attempts: item.attempts }, 'outbox delete already took effect on an earlier try');
  return { kind: 'done', sent: true };
}

/** While an answer cannot be recorded, at most one warning this often. */
export const RECORD_WARN_EVERY_MS = 60_000;

/** How long an answer the service gave waits, at most, between tries to record it. */
export const RECORD_RETRY_MAX_MS = 5_000;

/**
 * Records what the service answered: the edit took effect there, so the answer is kept and its
 * recording retried (with backoff, until the database answers or the pusher stops) rather than
 * lost to a database that is away; a resend would be settled by the item's key anyway. An error
 * the same write would meet again (not a database that is away) is not retried.
 */
async function recorded<T>(ctx: SendContext, record: () => Promise<T>): Promise<T> {
  let warnedAt: number | undefined;
  let refused = false;
  for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, RECORD_RETRY_MAX_MS)) {
    try {
      const done = await record();
      if (refused) ctx.disk?.wrote();
      return done;
    } catch (error) {
      if (ctx.signal?.aborted || !isTransientStoreError(error)) throw error;
      if (isDiskFull(error)) {
        refused = true;
        ctx.disk?.refused(error);
      }
      // One line when it begins, then at most one a minute (a full disk may last hours), or
      // none more when the disk watch says it once a minute.
      const now = ctx.clock.now();
      const again = !(refused && ctx.disk) && now - (warnedAt ?? now) >= RECORD_WARN_EVERY_MS;
      if (warnedAt === undefined || again) {
        warnedAt = now;
        ctx.logger.warn(
          { err: errorLine(error), retryInMs: waitMs },
          'cannot record an answer yet',
        );
      }
      await ctx.clock.sleep(waitMs, ctx.signal);
    }
  }
}
