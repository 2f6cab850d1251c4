/** One benchmark's result as printed and tabulated: the figure, its same-run baseline, the target. */

/** What a benchmark reports. */
export interface Figure {
  /** `1` to `6`, with a letter for a second line of the same benchmark (`3b`). */
  id: string;
  title: string;
  /** The measured figure, in words and units. */
  value: string;
  /** The baseline measured in the same run, and the ratio to it. */
  baseline: string;
  target: string;
  met: boolean;
  /** Why a target is missed, or what the figure does not show. */
  note?: string;
}

/** Formats a number with a fixed count of decimals and thousands separators. */
export function num(value: number, decimals = 0): string {
  return value.toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/** Milliseconds as `850 ms`, `12.3 s` or `2.5 min`. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${num(ms, ms < 10 ? 1 : 0)} ms`;
  if (ms < 120_000) return `${num(ms / 1_000, 1)} s`;
  if (ms < 7_200_000) return `${num(ms / 60_000, 1)} min`;
  return `${num(ms / 3_600_000, 1)} h`;
}

/** Bytes as MiB. */
export function mebibytes(bytes: number): string {
  return `${num(bytes / 1024 / 1024, 0)} MiB`;
}

/** The figure as printed while the benchmarks run. */
export function figureLines(figure: Figure): string {
  const verdict = figure.met ? 'met' : 'MISSED';
  const lines = [
    `[${figure.id}] ${figure.title}`,
    `    figure:   ${figure.value}`,
    `    baseline: ${figure.baseline}`,
    `    target:   ${figure.target} (${verdict})`,
  ];
  if (figure.note) lines.push(`    note:     ${figure.note}`);
  return lines.join('\n');
}

/** Every figure as one Markdown table, for the README. */
export function markdownTable(figures: readonly Figure[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = figures.map((f) => {
    const verdict = f.met ? 'met' : `**missed**${f.note ? `: ${f.note}` : ''}`;
    const target = `${f.target}: ${verdict}`;
    return `| ${f.id} | ${cell(f.title)} | ${cell(f.value)} | ${cell(f.baseline)} | ${cell(target)} |`;
  });
  return [
    '| # | benchmark | figure | baseline (same run) | target |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
