/** `projmirror status` as text for people. */
import { printable } from '../../domain/index.js';
import { plural } from '../plural.js';
import type { MirrorSpace } from '../../store/port.js';
import type { DaemonStatus, QuotaStatus, StatusReport, TokenStatus } from './gather.js';

/** "3h 2m", "45s": a duration for people. */
export function humanDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** Pads each column to its widest cell. */
export function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A quota as one line: what is left, today's rate and when it runs out at that rate. */
function quotaLine(q: QuotaStatus): string {
  if (q.limit === null) return `not learned yet (resets ${q.resetAt})`;
  const outlook = q.exhaustedAt
    ? `runs out at ${q.exhaustedAt} at this rate`
    : 'lasts until the reset at this rate';
  const rate = q.ratePerHour === null ? '' : `, ${q.ratePerHour} requests/hour today, ${outlook}`;
  return `${q.remaining ?? '?'} of ${q.limit} left (as of ${q.learnedAt ?? '?'})${rate}; resets ${q.resetAt}`;
}

/** One token: label, scope, what it reads, its quota and its polling. */
function tokenLine(token: TokenStatus): string {
  const refused = token.refused ? ', REFUSED by the service' : '';
  const poll =
    token.pollIntervalSeconds === null
      ? ''
      : `; polls every ${humanDuration(token.pollIntervalSeconds)}`;
  return (
    `token ${token.label} (scope ${token.scope}${refused}): ${plural(token.projects.length, 'project')}; ` +
    `quota ${quotaLine(token.quota)}${token.quota.pausedUntil ? `; paused until ${token.quota.pausedUntil}` : ''}${poll}`
  );
}

/** How often the plan polls: one interval for all, or the interval alike polls would have. */
function pollWords(plan: NonNullable<StatusReport['plan']>): string {
  const every = humanDuration(plan.intervalSeconds);
  return plan.maxStalenessSeconds === null
    ? `poll every ${every}`
    : `poll each project by its change rate (every ${every} if all were alike)`;
}

/** The allocation by change rate: the bound, whether it holds, the expected staleness. */
function allocationLine(plan: NonNullable<StatusReport['plan']>): string {
  const held = plan.boundHeld === false ? ' (NOT held: the budget polls every project alike)' : '';
  const expected =
    plan.expectedStalenessSeconds === null
      ? ''
      : `; a change waits ${humanDuration(plan.expectedStalenessSeconds)} on average`;
  return (
    `polls by change rate: no project waits longer than ` +
    `${humanDuration(plan.maxStalenessSeconds ?? 0)}${held}${expected}`
  );
}

/** The whole status as lines of text. */
export function renderStatus(report: StatusReport): string {
  const lines: string[] = [];
  const header = [
    'project',
    'name',
    'tasks',
    'backfill',
    'last pass',
    'staleness',
    'next poll',
    'changes/h',
    'polled every',
    'expected staleness',
    'token',
    ...(report.daemons === undefined ? [] : ['daemon']),
    'problem',
  ];
  // Ids, names, reasons and errors come from the service: escaped and cut before they are shown.
  const rows = report.projects.map((p) => [
    printable(p.id),
    printable(p.readOnlyReason ? `${p.name} (read-only: ${p.readOnlyReason})` : p.name),
    String(p.tasks),
    p.backfill === 'in_progress'
      ? `in progress ${plural(p.pagesRead, 'page')} of ${p.totalCount ?? '?'} tasks`
      : p.backfill,
    p.lastPassAt ?? 'never',
    p.stalenessSeconds === null ? '-' : humanDuration(p.stalenessSeconds),
    p.nextPollAt ?? '-',
    p.changesPerHour === null ? '-' : String(p.changesPerHour),
    pollCell(p),
    p.expectedStalenessSeconds === null ? '-' : humanDuration(p.expectedStalenessSeconds),
    p.token ?? '-',
    ...(report.daemons === undefined ? [] : [p.heldBy ?? '-']),
    printable(p.lastError ?? ''),
  ]);
  lines.push(report.projects.length === 0 ? 'no project mirrored yet' : table([header, ...rows]));
  const q = report.quota;
  lines.push('');
  lines.push(`quota${report.tokens.length > 1 ? ' (all tokens)' : ''}: ${quotaLine(q)}`);
  if (q.pausedUntil) lines.push(`paused by the service until ${q.pausedUntil}`);
  if (report.tokens.length > 1) lines.push(...report.tokens.map(tokenLine));
  const plan = report.plan;
  if (plan) {
    lines.push(
      `plan (${plan.computedAt}): ${pollWords(plan)}, ` +
        `${plan.plannedPollRequests} poll requests planned to the reset, ${plan.reserve} reserved for pushes and refreshes, ` +
        `${plan.foreignRequests} expected from other clients; staleness bound ${humanDuration(plan.stalenessBoundSeconds)}`,
    );
    if (plan.maxStalenessSeconds !== null) lines.push(allocationLine(plan));
  } else {
    lines.push('plan: none yet (the daemon has not run)');
  }
  const startup = report.startup;
  if (startup?.finishedAt) {
    const failed = startup.failed?.length
      ? `; ${plural(startup.failed.length, 'project')} failed, retried with backoff`
      : '';
    lines.push(
      `start-up reconcile: began ${startup.startedAt}, finished ${startup.finishedAt}${failed}`,
    );
  } else if (startup) {
    lines.push(`start-up reconcile: began ${startup.startedAt}, not finished`);
  }
  const o = report.outbox;
  const counts = Object.entries(o.counts)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const oldest =
    o.oldestPendingAgeMs === null
      ? ''
      : `; oldest pending ${humanDuration(o.oldestPendingAgeMs / 1000)} old`;
  lines.push(`outbox: ${counts}${oldest}`);
  if (report.space !== undefined) lines.push(spaceLine(report.space));
  if (report.daemons !== undefined) lines.push('', ...daemonLines(report.daemons));
  return lines.join('\n');
}

/** "mirror: 11.2 MiB, 0.4 MiB in 96 free pages (given back daily); write-ahead log 4.0 MiB". */
function spaceLine(space: MirrorSpace): string {
  if (space.engine === 'postgresql') return `mirror: ${mebibytes(space.bytes)} (pg_database_size)`;
  const reclaim =
    space.autoVacuum === 'incremental' ? 'given back daily' : 'reused by later writes';
  return (
    `mirror: ${mebibytes(space.bytes)}, ${mebibytes(space.freeBytes ?? 0)} in ` +
    `${plural(space.freePages ?? 0, 'free page')} (${reclaim}); ` +
    `write-ahead log ${mebibytes(space.walBytes ?? 0)}`
  );
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/** The daemons sharing a PostgreSQL mirror: who, with which tokens, how lately heard, holding what. */
function daemonLines(daemons: readonly DaemonStatus[]): string[] {
  if (daemons.length === 0) return ['daemons: none running on this PostgreSQL mirror'];
  const header = ['daemon', 'version', 'tokens', 'started', 'heartbeat', 'projects'];
  const rows = daemons.map((d) => [
    printable(`${d.host}:${d.pid}`),
    printable(d.version),
    printable(d.tokens.join(',')),
    d.startedAt,
    `${humanDuration(d.heartbeatAgeSeconds)} ago`,
    d.projects.length === 0 ? '-' : printable(d.projects.join(', ')),
  ]);
  return [`daemons (${daemons.length}):`, table([header, ...rows])];
}

/** How often a project is polled: its full passes, and its hot pages when polled on their own. */
function pollCell(p: StatusReport['projects'][number]): string {
  if (p.pollIntervalSeconds === null) return '-';
  const passes = humanDuration(p.pollIntervalSeconds);
  if (p.hotPages === undefined || p.hotPages.length === 0) return passes;
  const pages = p.hotPages.map((hot) => `p${hot.page} ${humanDuration(hot.intervalSeconds)}`);
  return `${passes} (hot pages: ${pages.join(', ')})`;
}
