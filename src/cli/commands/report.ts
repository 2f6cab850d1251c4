/** `projmirror report`: project progress and overdue tasks from the mirror alone, no network. */
import {
  buildReport,
  openMirrorForReading,
  REPORT_FORMATS,
  renderReport,
} from '../../report/index.js';
import { checkProject, type ReportFormat } from '../../report/index.js';
import type { CliCommand } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { withStoreOptions } from '../options.js';

export const reportCommand: CliCommand = {
  command: 'report',
  describe: 'project progress and overdue tasks from the mirror alone',
  builder: (yargs) =>
    withStoreOptions(yargs)
      .option('project', { type: 'string', describe: 'report only this project id' })
      .option('format', {
        type: 'string',
        choices: REPORT_FORMATS,
        default: 'table',
        describe:
          'table (aligned, both parts), csv (project progress) or json (projects with their overdue tasks)',
      }),
  handler: (args) => {
    const projectId = optionalText(args['project']);
    const db = openMirrorForReading(String(args['db']));
    try {
      checkProject(db, projectId);
      const report = buildReport(db, { projectId });
      process.stdout.write(renderReport(report, args['format'] as ReportFormat));
      return Promise.resolve(EXIT_OK);
    } finally {
      db.close();
    }
  },
};

/** A string option's value, or undefined when absent or empty. */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
