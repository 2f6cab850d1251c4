/** Every command of the CLI, in the order `--help` lists them. */
import type { CliCommand } from '../command.js';
import { demoCommand } from './demo.js';
import { enqueueCommand } from './enqueue.js';
import { exportCommand } from './export.js';
import { outboxCommand } from './outbox.js';
import { pushCommand } from './push.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { simulateCommand } from './simulate.js';
import { statusCommand } from './status.js';
import { syncCommand } from './sync.js';
import { versionCommand } from './version.js';

export const commands: CliCommand[] = [
  syncCommand,
  runCommand,
  pushCommand,
  enqueueCommand,
  statusCommand,
  outboxCommand,
  reportCommand,
  exportCommand,
  simulateCommand,
  demoCommand,
  versionCommand,
];
