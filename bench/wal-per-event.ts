/**
 * Benchmark 11: the bytes one realtime event's write adds to SQLite's write-ahead log, with a
 * reader holding a snapshot meanwhile (as a BI tool does), so that the log cannot start over and
 * its growth is every frame the writes appended. A mirror of one 10,000-task project; events of
 * seven kinds in turn (created, renamed, status, progress, dates, assignees, deleted), each the
 * record as the service sends it. Single: each event alone, one transaction each (an event that
 * arrives while no write is in flight). Burst: the same mix arriving at once, through the
 * daemon's group commit (`EventBatch`).
 */
import { statSync } from 'node:fs';
import { EventBatch } from '../src/daemon/event-batch.js';
import type { CheckedEvent, RealtimeEvent } from '../src/domain/index.js';
import { checkEvent } from '../src/realtime/index.js';
import { startSimulator } from '../src/sim/index.js';
import { openDatabase, type SqliteDb } from '../src/store/database.js';
import { num, type Figure } from './figure.js';
import { benchEngine, tempMirror } from './harness.js';

/** Tasks of the mirrored project. */
const PROJECT_TASKS = 10_000;
/** Events written one by one, and in the burst. */
export const WAL_EVENTS = 700;
/** The target for a single event's write, on average, in KiB. */
export const SINGLE_TARGET_KIB = 48;

/** The kinds of event, in the order they come. */
const KINDS = [
  'created',
  'renamed',
  'status',
  'progress',
  'dates',
  'assignees',
  'deleted',
] as const;
type Kind = (typeof KINDS)[number];

/** Runs benchmark 11; returns its figures. */
export async function walPerEventBenchmarks(events = WAL_EVENTS): Promise<Figure[]> {
  const sim = await startSimulator({ projects: 1, tasks: PROJECT_TASKS, limits: false });
  const mirror = tempMirror();
  const engine = await benchEngine(sim.baseUrl, sim.token, mirror.db, { limits: false });
  const reader = openDatabase(mirror.file, { readonly: true });
  try {
    const report = await engine.mirror.syncAll();
    if (!report.ok) throw new Error(`sync failed: ${report.error ?? 'a project failed'}`);
    const maker = new EventMaker(mirror.db);
    const writer = engine.mirror.writer;
    const single = await measure(mirror, reader, async () => {
      const perKind = new Map<Kind, number[]>();
      for (let i = 0; i < events; i++) {
        const kind = KINDS[i % KINDS.length]!;
        const before = walBytes(mirror.file);
        await writer.applyEvent(maker.next(kind));
        const list = perKind.get(kind) ?? [];
        list.push(walBytes(mirror.file) - before);
        perKind.set(kind, list);
      }
      return perKind;
    });
    const batch = new EventBatch((list) => writer.applyEvents(list));
    const burst = await measure(mirror, reader, async () => {
      const list = Array.from({ length: events }, (_, i) => maker.next(KINDS[i % KINDS.length]!));
      await Promise.all(list.map((event) => batch.apply(event)));
      return undefined;
    });
    const singleKib = single.bytes / events / 1024;
    const burstKib = burst.bytes / events / 1024;
    const kinds = [...single.value.entries()]
      .map(([kind, sizes]) => `${kind} ${kib(sizes.reduce((a, b) => a + b, 0) / sizes.length)}`)
      .join(', ');
    const pageKib = (mirror.db.pragma('page_size', { simple: true }) as number) / 1024;
    return [
      {
        id: '11',
        title: `WAL per event write, ${num(events)} single-task events one by one, a reader holding a snapshot`,
        value: `WAL per event write ${num(singleKib)} KiB (${kinds}; ${num(pageKib)} KiB pages)`,
        baseline: `before issue 38 (16 KiB pages, every column updated, no group commit): 158 KiB, created 222 KiB`,
        target: `<= ${SINGLE_TARGET_KIB} KiB on average (issue 38)`,
        met: singleKib <= SINGLE_TARGET_KIB,
      },
      {
        id: '11b',
        title: `WAL per event in a burst of ${num(events)} events arriving together`,
        value: `WAL per event in a burst ${num(burstKib)} KiB`,
        baseline: `one by one ${num(singleKib)} KiB: ratio ${num(burstKib / singleKib, 2)}`,
        target: 'less than one by one',
        met: burstKib < singleKib,
      },
    ];
  } finally {
    reader.close();
    await engine.close();
    await sim.close();
    mirror.dispose();
  }
}

/** Runs `work` with `reader` inside a read transaction; the WAL's growth meanwhile. */
async function measure<T>(
  mirror: { db: SqliteDb; file: string },
  reader: SqliteDb,
  work: () => Promise<T>,
): Promise<{ bytes: number; value: T }> {
  mirror.db.pragma('wal_checkpoint(TRUNCATE)');
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM tasks').get();
  try {
    const before = walBytes(mirror.file);
    const value = await work();
    return { bytes: walBytes(mirror.file) - before, value };
  } finally {
    reader.exec('COMMIT');
  }
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

function kib(bytes: number): string {
  return `${num(bytes / 1024)} KiB`;
}

/** Makes events of each kind from the mirror's tasks, each task changed once. */
class EventMaker {
  private readonly db: SqliteDb;
  private readonly projectId: string;
  private readonly ids: string[];
  private readonly members: string[];
  private readonly sample: Record<string, unknown>;
  private created = 0;
  private tick = 0;

  constructor(db: SqliteDb) {
    this.db = db;
    this.projectId = db.prepare('SELECT id FROM projects').pluck().get() as string;
    this.ids = db.prepare('SELECT id FROM tasks ORDER BY random()').pluck().all() as string[];
    this.members = db.prepare('SELECT id FROM members').pluck().all() as string[];
    this.sample = this.task(this.ids[0]!);
  }

  /** The next event of `kind`, checked as the daemon checks it. */
  next(kind: Kind): CheckedEvent {
    return checkEvent(this.raw(kind));
  }

  private raw(kind: Kind): RealtimeEvent {
    const { projectId } = this;
    this.tick += 1;
    const updatedAt = new Date(Date.UTC(2030, 0, 1) + this.tick * 1_000).toISOString();
    if (kind === 'created') {
      this.created += 1;
      const id = `bench-wal-${this.created}`;
      const data = { ...this.sample, id, name: `New task ${this.created}`, updatedAt };
      return { type: 'task.created', projectId, id, data: data as never };
    }
    const id = this.ids.pop()!;
    if (kind === 'deleted') return { type: 'task.deleted', projectId, id };
    const data = this.task(id);
    if (kind === 'renamed') data['name'] = `Renamed ${this.tick}`;
    if (kind === 'status') data['status'] = data['status'] === 'Done' ? 'In progress' : 'Done';
    if (kind === 'progress') data['progress'] = ((data['progress'] as number) + 7) % 100;
    if (kind === 'dates') data['endDate'] = '2031-06-30';
    if (kind === 'assignees') data['assigneeIds'] = this.members.slice(0, 1 + (this.tick % 2));
    data['updatedAt'] = updatedAt;
    return { type: 'task.updated', projectId, id, data: data as never };
  }

  private task(id: string): Record<string, unknown> {
    const text = this.db.prepare('SELECT data FROM tasks WHERE id = ?').pluck().get(id) as string;
    return JSON.parse(text) as Record<string, unknown>;
  }
}
