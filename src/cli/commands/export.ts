/** `projmirror export`: write each reporting view as a CSV or JSON file, from the mirror alone. */
import { relative } from 'node:path';
import {
  checkProject,
  EXPORT_FORMATS,
  exportViews,
  openMirrorForReading,
} from '../../report/index.js';
import type { ExportFormat } from '../../report/index.js';
import type { CliCommand } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { withStoreOptions } from '../options.js';
import { optionalText } from './report.js';

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
      .option('project', { type: 'string', describe: 'export only this project id' }),
  handler: (args) => {
    const projectId = optionalText(args['project']);
    const dir = String(args['out']);
    const db = openMirrorForReading(String(args['db']));
    try {
      checkProject(db, projectId);
      const files = exportViews(db, { format: args['format'] as ExportFormat, dir, projectId });
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
