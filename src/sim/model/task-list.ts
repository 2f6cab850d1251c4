/**
 * A project's tasks in listing order: an array, so a page is one slice and costs O(page size)
 * however large the project is. Writes that must find a row (delete, reorder) cost O(project).
 */
import type { TaskRow } from './rows.js';

/** The ordered tasks of one project. */
export class TaskList {
  private readonly rows: TaskRow[] = [];
  /** Rows touched by every operation so far: lets tests prove a page does not scan the project. */
  rowsVisited = 0;

  /** How many tasks the project has. */
  get size(): number {
    return this.rows.length;
  }

  /** Adds a task at the end of the order. */
  append(row: TaskRow): void {
    this.rows.push(row);
  }

  /** The rows at positions [offset, offset + limit), in order. */
  page(offset: number, limit: number): TaskRow[] {
    const rows = this.rows.slice(offset, offset + limit);
    this.rowsVisited += rows.length;
    return rows;
  }

  /** Removes a task; false when it is not in this list. */
  remove(row: TaskRow): boolean {
    const index = this.rows.lastIndexOf(row);
    this.rowsVisited += index < 0 ? this.rows.length : this.rows.length - index;
    if (index < 0) return false;
    this.rows.splice(index, 1);
    return true;
  }

  /**
   * Reorders: the listed tasks keep the set of positions they occupy now and fill them in the
   * listed order; every other task keeps its position. Returns the rows whose position changed,
   * in their new order.
   */
  reorder(listed: readonly TaskRow[]): TaskRow[] {
    const members = new Set(listed);
    const positions: number[] = [];
    this.rows.forEach((row, index) => {
      if (members.has(row)) positions.push(index);
    });
    this.rowsVisited += this.rows.length;
    const moved: TaskRow[] = [];
    positions.forEach((position, k) => {
      const row = listed[k];
      if (row === undefined || this.rows[position] === row) return;
      this.rows[position] = row;
      moved.push(row);
    });
    return moved;
  }

  /** Every row in order (O(project): for scripted reads and snapshots, never for pages). */
  all(): readonly TaskRow[] {
    this.rowsVisited += this.rows.length;
    return this.rows;
  }
}
