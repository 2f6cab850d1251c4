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
 * line on the right axis. With one day of history there is no line to draw yet: it says so.
 */
export function burndownChart(days: string[], openTasks: number[], openDays: number[]): string {
  const title = 'Burndown: open tasks and open task-days per day';
  if (days.length <= 1) {
    const lines = [
      days.length === 1 ? 'Only one day of history so far' : 'No history yet',
      days.length === 1
        ? `${days[0]}: ${openTasks[0] ?? 0} open tasks, ${openDays[0] ?? 0} open task-days`
        : '',
      'the burndown draws from the second day',
    ];
    return svg(title, [
      ...lines.map(
        (line, i) =>
          `<text class="note" x="${CHART_WIDTH / 2}" y="${CHART_HEIGHT / 2 - 10 + i * 20}" text-anchor="middle" font-size="${i === 0 ? 14 : 11}" fill="${i === 0 ? '#374151' : '#6b7280'}">${escapeHtml(line)}</text>`,
      ),
    ]);
  }
  const tasksAxis = axis(Math.max(0, ...openTasks));
  const daysAxis = axis(Math.max(0, ...openDays));
  const tasksLine = points(openTasks, tasksAxis.max);
  const area = `${x(0, openTasks.length)},${y(0, 1)} ${tasksLine} ${x(openTasks.length - 1, openTasks.length)},${y(0, 1)}`;
  return svg(title, [
    grid(tasksAxis),
    `<polygon class="mark" points="${area}" fill="#3b82f6" fill-opacity="0.15"/>`,
    `<polyline class="mark" points="${tasksLine}" fill="none" stroke="#3b82f6" stroke-width="2"/>`,
    `<polyline class="mark" points="${points(openDays, daysAxis.max)}" fill="none" stroke="#e8a317" stroke-width="1.5" stroke-dasharray="4 3"/>`,
    tickLabels(tasksAxis, MARGIN.left - 4, 'end'),
    tickLabels(daysAxis, CHART_WIDTH - MARGIN.right + 4, 'start'),
    dayLabels(days),
    legend([
      ['open tasks', '#3b82f6'],
      ['open task-days (right)', '#e8a317'],
    ]),
  ]);
}

/** Tasks by status over time: one stacked band per status, the axis up to the highest stack. */
export function statusChart(days: string[], series: DaySeries[]): string {
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const scale = axis(Math.max(0, ...totals));
  const count = Math.max(days.length, 2);
  const below = Array.from({ length: count }, () => 0);
  const bands = series.map((s, index) => {
    const lower = below.slice();
    spread(s.values).forEach((value, i) => (below[i] = (below[i] ?? 0) + value));
    const top = below.map((value, i) => `${x(i, count)},${y(value, scale.max)}`);
    const bottom = lower.map((value, i) => `${x(i, count)},${y(value, scale.max)}`).reverse();
    return `<polygon class="mark" points="${[...top, ...bottom].join(' ')}" fill="${statusColour(s.label, index)}"><title>${escapeHtml(s.label)}</title></polygon>`;
  });
  return svg('Tasks by status over time', [
    grid(scale),
    ...bands,
    tickLabels(scale, MARGIN.left - 4, 'end'),
    dayLabels(days),
    legend(series.map((s, index) => [s.label, statusColour(s.label, index)])),
  ]);
}

/** One row of the workload heat map: a member and the task-days of each week. */
export interface HeatRow {
  label: string;
  values: number[];
}

/** The heat map's legend: this many swatches from no load to the most task-days. */
const HEAT_LEGEND_STEPS = 5;
const HEAT_COLOUR = '#d9480f';
const HEAT_LEGEND_HEIGHT = 22;

/**
 * Workload per member per week: one cell per member and week, darker for more task-days, with a
 * legend under the cells from 0 to the most task-days of any cell.
 */
export function heatMap(weeks: string[], rows: HeatRow[]): string {
  const labelWidth = 110;
  const top = 22;
  const cellWidth = (CHART_WIDTH - labelWidth - 8) / Math.max(weeks.length, 1);
  const cellHeight = Math.min(
    22,
    (CHART_HEIGHT - top - HEAT_LEGEND_HEIGHT - 6) / Math.max(rows.length, 1),
  );
  const max = Math.max(1, ...rows.flatMap((row) => row.values));
  const cells = rows.flatMap((row, r) =>
    row.values.map((value, w) => {
      const title = `${row.label}, ${weeks[w]}: ${value} task-days`;
      return `<rect class="mark" x="${(labelWidth + w * cellWidth).toFixed(1)}" y="${(top + r * cellHeight).toFixed(1)}" width="${Math.max(cellWidth - 1, 0.5).toFixed(1)}" height="${Math.max(cellHeight - 1, 0.5).toFixed(1)}" fill="${HEAT_COLOUR}" fill-opacity="${heatOpacity(value, max).toFixed(2)}"><title>${escapeHtml(title)}</title></rect>`;
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
  return svg('Workload: task-days per member and ISO week', [
    ...cells,
    ...names,
    weekLabels,
    heatLegend(labelWidth, max),
  ]);
}

function heatOpacity(value: number, max: number): number {
  return value === 0 ? 0.04 : 0.15 + 0.85 * (value / max);
}

/** Swatches from 0 to `max` task-days, each labelled with the load it stands for. */
function heatLegend(left: number, max: number): string {
  const at = CHART_HEIGHT - HEAT_LEGEND_HEIGHT + 4;
  const width = 34;
  const values = Array.from({ length: HEAT_LEGEND_STEPS }, (_, i) =>
    Math.round((max * i) / (HEAT_LEGEND_STEPS - 1)),
  );
  const swatches = values.map(
    (value, i) =>
      `<rect x="${left + i * (width + 2)}" y="${at}" width="${width}" height="9" fill="${HEAT_COLOUR}" fill-opacity="${heatOpacity(value, max).toFixed(2)}" stroke="#d1d5db" stroke-width="0.5"/><text x="${left + i * (width + 2) + width / 2}" y="${at + 19}" text-anchor="middle" font-size="9" fill="#6b7280">${value}</text>`,
  );
  return `<g class="legend"><text x="${left - 6}" y="${at + 8}" text-anchor="end" font-size="10" fill="#374151">task-days/week</text>${swatches.join('')}</g>`;
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

/** A value axis: its top and the step between its ticks (whole numbers: counts and days). */
interface Axis {
  max: number;
  step: number;
}

/** The most ticks above zero an axis shows. */
const MAX_TICKS = 6;

/**
 * The axis for values up to `value`: the smallest step of 1, 2 or 5 times a power of ten that
 * needs at most MAX_TICKS ticks, and the first tick at or above `value` as its top, so the
 * highest value is within one step of the top (11 tasks: an axis to 12, where a round 1-2-5
 * maximum would give 20).
 */
function axis(value: number): Axis {
  if (value <= 0) return { max: 1, step: 1 };
  for (let power = 1; ; power *= 10) {
    for (const factor of [1, 2, 5]) {
      const step = factor * power;
      const ticks = Math.ceil(value / step);
      if (ticks <= MAX_TICKS) return { max: ticks * step, step };
    }
  }
}

/** The horizontal line of each tick. */
function grid(scale: Axis): string {
  const lines: string[] = [];
  for (let value = 0; value <= scale.max; value += scale.step) {
    const at = y(value, scale.max);
    lines.push(
      `<line x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#e5e7eb"/>`,
    );
  }
  return lines.join('');
}

/** The value of each tick, beside the plot at `atX`. */
function tickLabels(scale: Axis, atX: number, anchor: string): string {
  const labels: string[] = [];
  for (let value = 0; value <= scale.max; value += scale.step) {
    labels.push(axisLabel(atX, y(value, scale.max) + 3, String(value), anchor));
  }
  return labels.join('');
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
