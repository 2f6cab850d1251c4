/** What `projmirror status` reads of the mirror, as one record, read where the connection is. */
import { budgetKey, DaemonStateRepository, STATE_KEYS } from '../daemon-state.js';
import { isSharedMirror, type MirrorHandle } from '../handle.js';
import { OutboxRepository } from '../outbox.js';
import type { StatusFacts } from '../port.js';
import { Coordination } from '../postgres/coordination.js';
import { ProjectsRepository } from '../projects.js';
import { mirrorSpace } from '../space.js';
import { SyncStateRepository } from '../sync-state.js';

/** Reads the facts `status` shows of one mirror. */
export class StatusUnits {
  private readonly mirror: MirrorHandle;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
  }

  /** The saved state, projects, sync states, daemons, space and outbox summary at `now`. */
  async facts(now: number): Promise<StatusFacts> {
    const state = new DaemonStateRepository(this.mirror);
    const saved: Record<string, unknown> = {};
    for (const key of [
      STATE_KEYS.plan,
      STATE_KEYS.routing,
      STATE_KEYS.budget,
      STATE_KEYS.startup,
    ]) {
      saved[key] = await state.get(key);
    }
    const routing = saved[STATE_KEYS.routing] as { tokens?: Array<{ label: string }> } | undefined;
    for (const token of routing?.tokens ?? []) {
      saved[budgetKey(token.label)] = await state.get(budgetKey(token.label));
    }
    const shared = isSharedMirror(this.mirror);
    return {
      state: saved,
      sync: await new SyncStateRepository(this.mirror).list(),
      projects: await new ProjectsRepository(this.mirror).summaries(),
      daemons: shared ? await new Coordination(this.mirror).daemons() : undefined,
      space: await mirrorSpace(this.mirror),
      outbox: await new OutboxRepository(this.mirror).summary(now),
    };
  }
}
