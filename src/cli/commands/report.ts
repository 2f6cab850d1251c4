/** `projmirror report`: project progress and overdue tasks from the mirror alone, no network. */
import { UsageError } from '../../domain/index.js';
import {
  buildReport,
  gatherHtmlReport,
  REPORT_FORMATS,
  renderHtmlReport,
  renderReport,
  writeWhole,
  type ReportFormat,
} from '../../report/index.js';
import { openReportStore } from '../../store/open.js';
import type { Store } from '../../store/port.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { mirrorLocation, parseTimeZone, withStoreOptions } from '../options.js';
import { plural } from '../plural.js';
import { writePiecesToStdout } from '../stdio.js';

export const body: CommandBody = {
  builder: (yargs) =>
    withStoreOptions(yargs)
      .option('project', { type: 'string', describe: 'report only this project id' })
      .option('format', {
        type: 'string',
        choices: REPORT_FORMATS,
        default: 'table',
        describe:
          'table (aligned, both parts), csv (project progress) or json (the same as --json)',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'print one JSON array: the projects, each with its overdue_tasks',
      })
      .option('limit', {
        type: 'number',
        describe: 'show at most N projects and N overdue tasks',
      })
      .option('bom', {
        type: 'boolean',
        default: false,
        describe: 'start CSV with a UTF-8 byte order mark (for Excel)',
      })
      .option('html', {
        type: 'string',
        nargs: 1,
        describe:
          'write a self-contained HTML page with charts (burndown, status over time, workload, overdue) to FILE instead; - to standard output',
      })
      .example('$0 report --project p_1', 'one project, as tables')
      .example('$0 report --json', 'every project as JSON, each with its overdue tasks')
      .example('$0 report --html - > report.html', 'the page of charts, to standard output'),
  handler: async (args) => {
    const projectId = optionalText(args['project']);
    const limit = parseLimit(args['limit']);
    const html = optionalText(args['html']);
    const store = await openForReport(args);
    try {
      await store.reports.checkProject(projectId);
      if (html !== undefined) {
        const data = await gatherHtmlReport(store.reports, { projectId, limit });
        if (html === '-') {
          await writePiecesToStdout([renderHtmlReport(data)]);
        } else {
          await writeWhole(html, [renderHtmlReport(data)]);
          process.stdout.write(`${html}\t${plural(data.projects.length, 'project')}\n`);
        }
      } else {
        const report = await buildReport(store.reports, { projectId, limit });
        const format = args['json'] === true ? 'json' : (args['format'] as ReportFormat);
        process.stdout.write(await renderReport(report, format, { bom: args['bom'] === true }));
      }
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
};

/**
 * Opens `--db` read-only for `report` or `export`, as a store on this thread; with `--timezone`,
 * its connection takes "today" in that zone (the mirror itself is left as it is).
 */
export async function openForReport(args: Record<string, unknown>): Promise<Store> {
  return await openReportStore(mirrorLocation(args), parseTimeZone(args['timezone']));
}

/** `--limit`: a whole number of rows, 1 or more; undefined when not given. */
export function parseLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new UsageError(`--limit ${String(value)} must be a whole number of rows, 1 or more`);
  }
  return value;
}

/** A string option's value, or undefined when absent or empty. */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
