/**
 * The `export`: every reporting view written to its own file (`<view>.csv` or `<view>.json`) in
 * one snapshot of the mirror (`ReportsPort.snapshot`), so the files agree with each other even
 * while the daemon writes. Rows stream to disk a batch at a time; each file appears whole
 * (written beside, then renamed over the old one).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ProjmirrorError, UsageError } from '../domain/index.js';
import {
  REPORT_VIEW_NAMES,
  type ReportsPort,
  type ReportViewName,
  type Row,
  type ViewFilter,
  type ViewSnapshot,
} from '../store/port.js';
import { csvLines, jsonLines, jsonRecord, ndjsonLines, type CsvOptions } from './format.js';

/** The file formats of `export`: CSV, a JSON array, NDJSON (one JSON object per line). */
export const EXPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;

/** One of `EXPORT_FORMATS`. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Pieces of text gathered before one write, in characters. */
export const WRITE_CHUNK_CHARS = 64 * 1024;

export interface ExportOptions extends ViewFilter, CsvOptions {
  format: ExportFormat;
  /** The directory to write into, created when missing. */
  dir: string;
  /** Only these views (default: every one). */
  views?: readonly ReportViewName[];
}

/** Checks `--view` names against the reporting views. */
export function checkViews(names: readonly string[]): ReportViewName[] {
  for (const name of names) {
    if (!(REPORT_VIEW_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(
        `--view ${JSON.stringify(name)} is not a reporting view (${REPORT_VIEW_NAMES.join(', ')})`,
      );
    }
  }
  return names as ReportViewName[];
}

/** Rows a snapshot hands over at a time: one batch in memory, never a view's whole. */
export const SNAPSHOT_BATCH_ROWS = 500;

/**
 * The rows of the view `snapshot` reads, a batch at a time. Before the first row, the caller
 * has started reading the view (`ViewSnapshot.read`).
 */
async function* snapshotRows(snapshot: ViewSnapshot): AsyncGenerator<Row> {
  for (;;) {
    const batch = await snapshot.next(SNAPSHOT_BATCH_ROWS);
    yield* batch;
    if (batch.length < SNAPSHOT_BATCH_ROWS) return;
  }
}

/** One view's rows in `format`, read through `snapshot`, as pieces of text; `onRow` counts them. */
export async function viewPieces(
  snapshot: ViewSnapshot,
  view: ReportViewName,
  options: Omit<ExportOptions, 'dir'>,
  onRow: () => void = () => {},
): Promise<AsyncIterable<string>> {
  const { columns, types } = await snapshot.read(view, { projectId: options.projectId });
  const counted = (async function* () {
    for await (const row of snapshotRows(snapshot)) {
      onRow();
      yield row;
    }
  })();
  const records = (async function* () {
    for await (const row of counted) yield jsonRecord(row, types);
  })();
  return options.format === 'csv'
    ? csvLines(columns, counted, options)
    : options.format === 'json'
      ? jsonLines(records)
      : ndjsonLines(records);
}

/**
 * Runs `work` over one snapshot of the views, ended afterwards whatever happened (an error of
 * `work` is the one told, not one of ending the snapshot after it).
 */
async function inSnapshot<T>(
  reports: ReportsPort,
  work: (snapshot: ViewSnapshot) => Promise<T>,
): Promise<T> {
  const snapshot = await reports.snapshot();
  let result: T;
  try {
    result = await work(snapshot);
  } catch (error) {
    await snapshot.end().catch(() => {});
    throw error;
  }
  await snapshot.end();
  return result;
}

/**
 * Writes one view's rows in `format` through `write`, from one snapshot as a directory's export
 * has (the rows of a PostgreSQL mirror then come through a cursor, never all at once), however
 * long `write` waits on its reader.
 */
export async function writeView(
  reports: ReportsPort,
  view: ReportViewName,
  options: Omit<ExportOptions, 'dir'>,
  write: (pieces: AsyncIterable<string>) => Promise<void>,
): Promise<void> {
  await inSnapshot(reports, async (snapshot) => {
    await write(await viewPieces(snapshot, view, options));
  });
}

/** A file `export` wrote. */
export interface ExportedFile {
  view: ReportViewName;
  path: string;
  rows: number;
}

/** Writes each reporting view as a file in `options.dir`; returns what it wrote. */
export async function exportViews(
  reports: ReportsPort,
  options: ExportOptions,
): Promise<ExportedFile[]> {
  try {
    mkdirSync(options.dir, { recursive: true });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--out ${options.dir}: cannot create the directory (${reason})`, {
      cause: error,
    });
  }
  const views = options.views ?? REPORT_VIEW_NAMES;
  return inSnapshot(reports, async (snapshot) => {
    const files: ExportedFile[] = [];
    for (const view of views) files.push(await exportView(snapshot, view, options));
    return files;
  });
}

async function exportView(
  snapshot: ViewSnapshot,
  view: ReportViewName,
  options: ExportOptions,
): Promise<ExportedFile> {
  const path = join(options.dir, `${view}.${options.format}`);
  let count = 0;
  await writeWhole(path, await viewPieces(snapshot, view, options, () => (count += 1)));
  return { view, path, rows: count };
}

/**
 * Writes `pieces` to `path` through a temporary file renamed over it at the end. The temporary
 * file has a fresh, unpredictable name and is created exclusively (`wx`): a symlink or file
 * planted by another user in the directory is never followed nor overwritten.
 */
export async function writeWhole(
  path: string,
  pieces: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const partial = `${path}.${randomBytes(8).toString('hex')}.partial`;
  let fd: number | undefined;
  let created = false;
  try {
    fd = openSync(partial, 'wx');
    created = true;
    let buffer = '';
    for await (const piece of pieces) {
      buffer += piece;
      if (buffer.length >= WRITE_CHUNK_CHARS) {
        writeSync(fd, buffer);
        buffer = '';
      }
    }
    writeSync(fd, buffer);
    closeSync(fd);
    fd = undefined;
    renameSync(partial, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    if (created) rmSync(partial, { force: true });
    if ((error as NodeJS.ErrnoException).syscall === undefined) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ProjmirrorError('export_failed', `cannot write ${path} (${reason})`, {
      cause: error,
    });
  }
}
