/**
 * The workload of benchmark 10 (issue 35), for the model of the poll schedule: 50 projects of 50
 * to 20,000 tasks (log-uniform), about 2,000 edits a day Zipf-distributed over the projects and
 * over the pages of each (a project's and a page's heat drawn once, so that the next day is hot
 * in the same places), a daily rhythm, some creates and deletes, and a few side-list changes. And
 * benchmark 6b's (10 projects of 2,000 tasks, 500 edits spread evenly) for the same model.
 */
import { Prng } from '../src/sim/index.js';

export const DAY_MS = 86_400_000;
/** Tasks per page, as the mirror reads them. */
export const PAGE_TASKS = 500;
/** The page index a side-list change falls on (members, resources, dependencies). */
export const SIDE_LISTS = -1;
/** Edits that create a task, landing on the project's last page. */
export const CREATE_SHARE = 0.03;
/**
 * Edits that delete a task of their page. The model counts a create or a delete as a change of its
 * page and keeps page counts fixed over the day; the daemon's run makes them on the simulator.
 */
export const DELETE_SHARE = 0.02;

/** One project: its pages, and each page's share of the project's edits. */
export interface ModelProject {
  id: string;
  tasks: number;
  pages: number;
  /** The project's expected edits a day (pages and side lists). */
  editsPerDay: number;
  /** Each page's expected edits a day, then the side lists' at `pages`. */
  itemEditsPerDay: number[];
}

/** One change on the service: when, which project, which page (or `SIDE_LISTS`), and what. */
export interface ModelChange {
  at: number;
  project: number;
  page: number;
  kind: 'edit' | 'create' | 'delete' | 'side';
}

/** A day of changes over the projects. */
export interface ModelDay {
  start: number;
  projects: ModelProject[];
  /** In time order. */
  changes: ModelChange[];
}

/** The shape of a workload. */
export interface WorkloadShape {
  projects: number;
  minTasks: number;
  maxTasks: number;
  /** Task edits a day, creates and deletes included. */
  edits: number;
  /** Side-list changes a day. */
  sideChanges: number;
  /** Zipf exponent over projects and over pages (0: even). */
  zipf: number;
  /** Depth of the daily rhythm: 0 flat; 0.8 the busiest hour 9 times the quietest. */
  rhythm: number;
}

/** Benchmark 10's skewed day. */
export const SKEWED: WorkloadShape = {
  projects: 50,
  minTasks: 50,
  maxTasks: 20_000,
  edits: 2_000,
  sideChanges: 40,
  zipf: 1,
  rhythm: 0.8,
};

/** Benchmark 6b's day: equal projects, edits spread evenly, no rhythm. */
export const EVEN: WorkloadShape = {
  projects: 10,
  minTasks: 2_000,
  maxTasks: 2_000,
  edits: 500,
  sideChanges: 0,
  zipf: 0,
  rhythm: 0,
};

/** The projects of a workload: sizes and heat, the same for every seed of one `shape`. */
export function modelProjects(shape: WorkloadShape, seed: number): ModelProject[] {
  const prng = new Prng(seed);
  const sizes = Array.from({ length: shape.projects }, () =>
    Math.round(shape.minTasks * (shape.maxTasks / shape.minTasks) ** prng.next()),
  );
  const heat = zipfShares(shape.projects, shape.zipf, prng);
  const sideShare = shape.sideChanges / Math.max(1, shape.edits + shape.sideChanges);
  return sizes.map((tasks, index) => {
    const pages = Math.max(1, Math.ceil(tasks / PAGE_TASKS));
    const editsPerDay = heat[index]! * (shape.edits + shape.sideChanges);
    const pageShares = zipfShares(pages, shape.zipf, prng);
    return {
      id: `p_${index + 1}`,
      tasks,
      pages,
      editsPerDay,
      itemEditsPerDay: [
        ...pageShares.map((share) => share * editsPerDay * (1 - sideShare)),
        editsPerDay * sideShare,
      ],
    };
  });
}

/** A day of changes at seeded instants, following the projects' heat and the daily rhythm. */
export function modelDay(
  shape: WorkloadShape,
  projects: ModelProject[],
  start: number,
  seed: number,
): ModelDay {
  const prng = new Prng(seed);
  const items = projects.flatMap((project, p) =>
    project.itemEditsPerDay.map((perDay, i) => ({
      project: p,
      page: i === project.pages ? SIDE_LISTS : i,
      perDay,
    })),
  );
  const total = items.reduce((sum, item) => sum + item.perDay, 0);
  const changes: ModelChange[] = [];
  for (let n = 0; n < shape.edits + shape.sideChanges; n += 1) {
    let pick = prng.next() * total;
    const item = items.find((candidate) => (pick -= candidate.perDay) < 0) ?? items.at(-1)!;
    const draw = prng.next();
    const kind =
      item.page === SIDE_LISTS
        ? 'side'
        : draw < CREATE_SHARE
          ? 'create'
          : draw < CREATE_SHARE + DELETE_SHARE
            ? 'delete'
            : 'edit';
    const page = kind === 'create' ? projects[item.project]!.pages - 1 : item.page;
    const at = start + rhythmInstant(shape.rhythm, prng);
    changes.push({ at, project: item.project, page, kind });
  }
  return { start, projects, changes: changes.sort((a, b) => a.at - b.at) };
}

/**
 * An instant of the day (ms after midnight) drawn from the rhythm 1 + depth x sin, busiest at
 * 14:00 UTC, by rejection.
 */
function rhythmInstant(depth: number, prng: Prng): number {
  for (;;) {
    const at = prng.next() * DAY_MS;
    const phase = (2 * Math.PI * (at - 8 * 3_600_000)) / DAY_MS;
    if (prng.next() * (1 + depth) < 1 + depth * Math.sin(phase)) return Math.floor(at);
  }
}

/** Shares of `count` ranks under Zipf(s), the ranks shuffled; even when s = 0. */
function zipfShares(count: number, s: number, prng: Prng): number[] {
  const weights = Array.from({ length: count }, (_, rank) => (rank + 1) ** -s);
  for (let i = count - 1; i > 0; i -= 1) {
    const j = prng.int(i + 1);
    [weights[i], weights[j]] = [weights[j]!, weights[i]!];
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((weight) => weight / sum);
}
