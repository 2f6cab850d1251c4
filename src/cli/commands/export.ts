/** `projmirror export`: write reporting views as CSV, JSON or NDJSON, from the mirror alone. */
import { relative } from 'node:path';
import { UsageError } from '../../domain/index.js';
import { checkViews, EXPORT_FORMATS, exportViews, writeView } from '../../report/index.js';
import type { ExportFormat } from '../../report/index.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { withStoreOptions } from '../options.js';
import { plural } from '../plural.js';
import { writePiecesToStdout } from '../stdio.js';
import { openForReport, optionalText } from './report.js';

export const body: CommandBody = {
  builder: (yargs) =>
    withStoreOptions(yargs)
      .option('format', {
        type: 'string',
        choices: EXPORT_FORMATS,
        demandOption: true,
        describe:
          'csv (RFC 4180, a header line), json (an array of objects) or ndjson (one object per line)',
      })
      .option('out', {
        type: 'string',
        nargs: 1,
        demandOption: true,
        describe:
          'directory to write <view>.<format> files into (created if missing); - writes the one --view to standard output',
      })
      .option('view', {
        type: 'string',
        array: true,
        describe: 'export only this view (repeat for several); default every reporting view',
      })
      .option('project', { type: 'string', describe: 'export only this project id' })
      .option('bom', {
        type: 'boolean',
        default: false,
        describe: 'start each CSV file with a UTF-8 byte order mark (for Excel)',
      })
      .example('$0 export --format csv --out reports', 'every view as reports/<view>.csv')
      .example(
        '$0 export --format ndjson --view v_overdue_tasks --out - | head -3',
        'one view as NDJSON on standard output',
      ),
  handler: async (args) => {
    const projectId = optionalText(args['project']);
    const dir = String(args['out']);
    const format = args['format'] as ExportFormat;
    const named = (args['view'] as string[] | undefined)?.map(String);
    const views = named === undefined ? undefined : checkViews(named);
    if (dir === '-' && views?.length !== 1) {
      throw new UsageError('--out - writes one view to standard output: name it with --view');
    }
    const store = await openForReport(args);
    try {
      await store.reports.checkProject(projectId);
      const bom = args['bom'] === true;
      if (dir === '-') {
        await writeView(store.reports, views![0]!, { format, projectId, bom }, writePiecesToStdout);
        return EXIT_OK;
      }
      const files = await exportViews(store.reports, {
        format,
        dir,
        projectId,
        bom,
        ...(views === undefined ? {} : { views }),
      });
      for (const file of files) {
        const shown = relative(process.cwd(), file.path) || file.path;
        process.stdout.write(`${shown}\t${plural(file.rows, 'row')}\n`);
      }
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
};
