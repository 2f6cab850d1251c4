/** What the plan and the poll schedule read of the mirror (`store.facts.planFacts`), as last read after each pass. */
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';
import type { Store } from '../store/port.js';

/** One mirrored project as the plan sees it. */
export interface ProjectFact {
  id: string;
  taskCount: number;
  lastPassAt: number | undefined;
}

/** The mirror's projects, their sizes and last passes, read again after each pass. */
export class PlanFacts {
  private facts: ProjectFact[] = [];

  constructor(
    private readonly store: Pick<Store['facts'], 'planFacts'>,
    private readonly logger: Logger,
  ) {}

  /** Reads the facts again; a store that does not answer keeps the last ones, with a warning. */
  async refresh(): Promise<void> {
    try {
      this.facts = await this.store.planFacts();
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not read the mirror for the plan');
    }
  }

  /** Every mirrored project, as last read. */
  all(): readonly ProjectFact[] {
    return this.facts;
  }

  /** The ids of the mirrored projects. */
  ids(): string[] {
    return this.facts.map((fact) => fact.id);
  }

  /** When `projectId` was last passed, if the mirror holds it. */
  lastPassAt(projectId: string): number | undefined {
    return this.facts.find((fact) => fact.id === projectId)?.lastPassAt;
  }
}
