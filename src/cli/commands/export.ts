/** `projmirror export`: write each reporting view as a CSV or JSON file, from the mirror alone. */
import { relative } from 'node:path';
import { checkProject, EXPORT_FORMATS, exportViews } from '../../report/index.js';
import type { ExportFormat } from '../../report/index.js';
import type { CliCommand } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { withStoreOptions } from '../options.js';
import { openForReport, optionalText } from './report.js';

export const exportCommand: CliCommand = {
  command: 'export',
  describe: 'write each reporting view as a CSV or JSON file',
  builder: (yargs) =>
    withStoreOptions(yargs)
      .option('format', {
        type: 'string',
        choices: EXPORT_FORMATS,
        demandOption: true,
        describe: 'csv (RFC 4180, a header line) or json (an array of objects)',
      })
      .option('out', {
        type: 'string',
        demandOption: true,
        describe: 'directory to write <view>.<format> files into (created if missing)',
      })
      .option('project', { type: 'string', describe: 'export only this project id' })
      .option('bom', {
        type: 'boolean',
        default: false,
        describe: 'start each CSV file with a UTF-8 byte order mark (for Excel)',
      }),
  handler: (args) => {
    const projectId = optionalText(args['project']);
    const dir = String(args['out']);
    const db = openForReport(args);
    try {
      checkProject(db, projectId);
      const format = args['format'] as ExportFormat;
      const files = exportViews(db, { format, dir, projectId, bom: args['bom'] === true });
      for (const file of files) {
        process.stdout.write(
          `${relative(process.cwd(), file.path) || file.path}\t${file.rows} rows\n`,
        );
      }
      return Promise.resolve(EXIT_OK);
    } finally {
      db.close();
    }
  },
};
