/** Identifier allocation: `p_1`, `t_1`, ... per prefix, skipping ids already taken (fixtures). */

/** Hands out fresh ids of the form `<prefix>_<n>`. */
export class IdAllocator {
  private readonly counters = new Map<string, number>();

  /** The next id with `prefix` for which `taken` is false. */
  next(prefix: string, taken: (id: string) => boolean): string {
    let n = this.counters.get(prefix) ?? 0;
    let id: string;
    do {
      n += 1;
      id = `${prefix}_${n}`;
    } while (taken(id));
    this.counters.set(prefix, n);
    return id;
  }
}
