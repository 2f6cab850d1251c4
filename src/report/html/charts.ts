/**
 * The report's charts as inline SVG: no script, no font or file from elsewhere, so the page draws
 * offline and prints as it shows. Each function returns one `<svg class="chart">` element.
 */
import { escapeHtml } from './escape.js';

/** The drawing area of every chart, in SVG units (the page scales it to its box). */
export const CHART_WIDTH = 480;
export const CHART_HEIGHT = 220;
const MARGIN = { top: 14, right: 44, bottom: 26, left: 44 };
const PLOT_WIDTH = CHART_WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;

/** Colours of the statuses (others take the rest of the palette in turn). */
const STATUS_COLOURS: Record<string, string> = {
  NotStarted: '#9aa5b1',
  InProgress: '#3b82f6',
  Done: '#22a06b',
};
const PALETTE = ['#e8a317', '#a855f7', '#ef4444', '#14b8a6', '#64748b'];

/** A series over days: one value per day of `days`. */
export interface DaySeries {
  label: string;
  values: number[];
}

/** The colour of a status in every chart. */
export function statusColour(status: string, index: number): string {
  return STATUS_COLOURS[status] ?? PALETTE[index % PALETTE.length]!;
}

/**
 * A burndown: open tasks per day as a filled line on the left axis, open task-days as a dashed
 * line on the right axis.
 */
export function burndownChart(days: string[], openTasks: number[], openDays: number[]): string {
  const tasksMax = niceMax(Math.max(0, ...openTasks));
  const daysMax = niceMax(Math.max(0, ...openDays));
  const tasks = spread(openTasks);
  const tasksLine = points(tasks, tasksMax);
  const area = `${x(0, tasks.length)},${y(0, 1)} ${tasksLine} ${x(tasks.length - 1, tasks.length)},${y(0, 1)}`;
  return svg('Burndown: open tasks and open task-days per day', [
    grid(),
    `<polygon class="mark" points="${area}" fill="#3b82f6" fill-opacity="0.15"/>`,
    `<polyline class="mark" points="${tasksLine}" fill="none" stroke="#3b82f6" stroke-width="2"/>`,
    `<polyline class="mark" points="${points(spread(openDays), daysMax)}" fill="none" stroke="#e8a317" stroke-width="1.5" stroke-dasharray="4 3"/>`,
    axisLabel(MARGIN.left - 4, MARGIN.top + 4, String(tasksMax), 'end'),
    axisLabel(MARGIN.left - 4, y(0, 1), '0', 'end'),
    axisLabel(CHART_WIDTH - MARGIN.right + 4, MARGIN.top + 4, String(daysMax), 'start'),
    dayLabels(days),
    legend([
      ['open tasks', '#3b82f6'],
      ['open task-days (right)', '#e8a317'],
    ]),
  ]);
}

/** Tasks by status over time: one stacked band per status. */
export function statusChart(days: string[], series: DaySeries[]): string {
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const count = Math.max(days.length, 2);
  const below = Array.from({ length: count }, () => 0);
  const bands = series.map((s, index) => {
    const lower = below.slice();
    spread(s.values).forEach((value, i) => (below[i] = (below[i] ?? 0) + value));
    const top = below.map((value, i) => `${x(i, count)},${y(value, max)}`);
    const bottom = lower.map((value, i) => `${x(i, count)},${y(value, max)}`).reverse();
    return `<polygon class="mark" points="${[...top, ...bottom].join(' ')}" fill="${statusColour(s.label, index)}"><title>${escapeHtml(s.label)}</title></polygon>`;
  });
  return svg('Tasks by status over time', [
    grid(),
    ...bands,
    axisLabel(MARGIN.left - 4, MARGIN.top + 4, String(max), 'end'),
    axisLabel(MARGIN.left - 4, y(0, 1), '0', 'end'),
    dayLabels(days),
    legend(series.map((s, index) => [s.label, statusColour(s.label, index)])),
  ]);
}

/** One row of the workload heat map: a member and the task-days of each week. */
export interface HeatRow {
  label: string;
  values: number[];
}

/** Workload per member per week: one cell per member and week, darker for more task-days. */
export function heatMap(weeks: string[], rows: HeatRow[]): string {
  const labelWidth = 110;
  const top = 22;
  const cellWidth = (CHART_WIDTH - labelWidth - 8) / Math.max(weeks.length, 1);
  const cellHeight = Math.min(22, (CHART_HEIGHT - top - 6) / Math.max(rows.length, 1));
  const max = Math.max(1, ...rows.flatMap((row) => row.values));
  const cells = rows.flatMap((row, r) =>
    row.values.map((value, w) => {
      const opacity = value === 0 ? 0.04 : 0.15 + 0.85 * (value / max);
      const title = `${row.label}, ${weeks[w]}: ${value} task-days`;
      return `<rect class="mark" x="${(labelWidth + w * cellWidth).toFixed(1)}" y="${(top + r * cellHeight).toFixed(1)}" width="${Math.max(cellWidth - 1, 0.5).toFixed(1)}" height="${Math.max(cellHeight - 1, 0.5).toFixed(1)}" fill="#d9480f" fill-opacity="${opacity.toFixed(2)}"><title>${escapeHtml(title)}</title></rect>`;
    }),
  );
  const names = rows.map(
    (row, r) =>
      `<text x="${labelWidth - 6}" y="${(top + r * cellHeight + cellHeight / 2 + 4).toFixed(1)}" text-anchor="end" font-size="11">${escapeHtml(truncate(row.label, 18))}</text>`,
  );
  const step = Math.max(1, Math.ceil(weeks.length / 6));
  const weekLabels = weeks
    .map((week, w) =>
      w % step === 0 && labelWidth + w * cellWidth < CHART_WIDTH - 50
        ? `<text x="${(labelWidth + w * cellWidth).toFixed(1)}" y="14" font-size="10">${escapeHtml(week)}</text>`
        : '',
    )
    .join('');
  return svg('Workload: task-days per member and ISO week', [...cells, ...names, weekLabels]);
}

function svg(title: string, parts: string[]): string {
  return `<svg class="chart" role="img" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" xmlns="http://www.w3.org/2000/svg"><title>${escapeHtml(title)}</title>${parts.join('')}</svg>`;
}

/** The x of point `i` of `count` (a single point sits in the middle). */
function x(i: number, count: number): number {
  const at = count <= 1 ? PLOT_WIDTH / 2 : (i / (count - 1)) * PLOT_WIDTH;
  return Math.round((MARGIN.left + at) * 10) / 10;
}

function y(value: number, max: number): number {
  return Math.round((MARGIN.top + PLOT_HEIGHT * (1 - value / max)) * 10) / 10;
}

function points(values: number[], max: number): string {
  return values.map((value, i) => `${x(i, values.length)},${y(value, max)}`).join(' ');
}

/** A single day still draws across the chart: its value is repeated at both ends. */
function spread(values: number[]): number[] {
  return values.length === 1 ? [values[0]!, values[0]!] : values;
}

/** A round number at or above `value` (1, 2 or 5 times a power of ten), at least 1. */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((f) => f * power).find((candidate) => candidate >= value)!;
}

function grid(): string {
  const lines = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const at = MARGIN.top + PLOT_HEIGHT * f;
    return `<line x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e5e7eb"/>`;
  });
  return lines.join('');
}

function axisLabel(atX: number, atY: number, text: string, anchor: string): string {
  return `<text x="${atX}" y="${atY}" text-anchor="${anchor}" font-size="10" fill="#6b7280">${escapeHtml(text)}</text>`;
}

function dayLabels(days: string[]): string {
  if (days.length === 0) return '';
  const bottom = CHART_HEIGHT - 8;
  const first = axisLabel(MARGIN.left, bottom, days[0]!, 'start');
  const last =
    days.length > 1 ? axisLabel(CHART_WIDTH - MARGIN.right, bottom, days.at(-1)!, 'end') : '';
  return first + last;
}

function legend(entries: Array<[string, string]>): string {
  let at = MARGIN.left + 4;
  return entries
    .map(([label, colour]) => {
      const item = `<rect x="${at}" y="${MARGIN.top - 10}" width="9" height="9" fill="${colour}"/><text x="${at + 12}" y="${MARGIN.top - 2}" font-size="10">${escapeHtml(label)}</text>`;
      at += 22 + label.length * 5.5;
      return item;
    })
    .join('');
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
