/** `projmirror enqueue <op>`: add an outbox item locally, without network; prints its id and idempotency key */
import { systemClock, UsageError } from '../../domain/index.js';
import { readSmallFile } from '../../domain/small-file.js';
import { checkTokenLabel, TOKEN_PREFIX } from '../../tokens/index.js';
import { OUTBOX_OPS } from '../../domain/outbox-ops.js';
import { openStore } from '../../store/open.js';
import { checkEnqueueInput } from '../../store/port.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { readStdin } from '../stdio.js';
import { STORE_OPTIONS, withCommonOptions } from '../common-options.js';
import { mirrorLocation } from '../options.js';

/** The largest `--body` read from a file or standard input. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The text of `--body`: JSON itself, `-` for standard input, or `@FILE` for a file's contents
 * (bounded by `MAX_BODY_BYTES`; a missing or unreadable file is a usage error naming it).
 */
export async function bodyText(value: unknown): Promise<string> {
  const text = typeof value === 'string' ? value : '{}';
  if (text === '-') return readStdin(MAX_BODY_BYTES, '--body - (standard input)');
  if (text.startsWith('@')) {
    return readSmallFile(text.slice(1), MAX_BODY_BYTES, `--body file ${text.slice(1)}`).text;
  }
  return text;
}

/** Parses the text of `--body`; anything but JSON is a usage error naming the text. */
export function parseBody(source: string, given: unknown = source): unknown {
  try {
    return JSON.parse(source) as unknown;
  } catch {
    const shown = source.length > 60 ? `${source.slice(0, 60)}...` : source;
    const from = given === source ? '' : ` (from ${String(given)})`;
    throw new UsageError(`--body ${JSON.stringify(shown)}${from} is not JSON`);
  }
}

/**
 * `--token LABEL`, checked. A value that is a token came from `PROJMIRROR_TOKEN` (the command
 * line refuses one), which names no label: ignored.
 */
function tokenLabel(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.startsWith(TOKEN_PREFIX)) return null;
  checkTokenLabel(value, '--token');
  return value;
}

export const body: CommandBody = {
  builder: (yargs) =>
    withCommonOptions(yargs, STORE_OPTIONS, ['token'])
      .positional('op', { type: 'string', describe: `the edit: ${OUTBOX_OPS.join(', ')}` })
      .option('project', { type: 'string', demandOption: true, describe: 'the project id' })
      .option('target', {
        type: 'string',
        describe: 'the task, dependency or resource id (updates, deletes, set_assignees)',
      })
      .option('body', {
        type: 'string',
        nargs: 1,
        default: '{}',
        describe: 'the JSON body of the edit; - reads it from standard input, @FILE from a file',
      })
      .option('token', {
        type: 'string',
        describe:
          "the label of the token to send it with (several tokens); default: the token that reads the project at the item's first attempt",
      })
      .option('json', { type: 'boolean', default: false, describe: 'print one JSON object' })
      .example(
        '$0 enqueue task.create --project p_1 --body \'{"name":"Pour","startDate":"2026-05-01","endDate":"2026-05-03","status":"NotStarted"}\'',
        'queue a new task',
      )
      .example(
        '$0 enqueue task.update --project p_1 --target t_1 --body \'{"progress":50}\'',
        "set a task's progress",
      )
      .example(
        'echo \'{"assigneeIds":[]}\' | $0 enqueue task.set_assignees --project p_1 --target t_1 --body -',
        'the body from standard input (--body @FILE: from a file)',
      ),
  handler: async (args) => {
    const target = args['target'];
    const input = {
      op: String(args['op']),
      projectId: String(args['project']),
      targetId: typeof target === 'string' && target !== '' ? target : null,
      body: parseBody(await bodyText(args['body']), args['body']),
      tokenLabel: tokenLabel(args['token']),
    };
    // Refused input leaves no trace: the mirror is opened (or created) only for a valid edit.
    checkEnqueueInput(input);
    const store = await openStore(mirrorLocation(args), 'edit');
    try {
      const queued = await store.outbox.enqueue(input, systemClock.now());
      process.stdout.write(
        args['json'] ? `${JSON.stringify(queued)}\n` : `${queued.id} ${queued.idempotencyKey}\n`,
      );
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
};
