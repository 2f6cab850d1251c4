/** `/metrics` and `/healthz` on `--metrics-host`:`--metrics-port`, opened and closed with the daemon. */
import type { Logger } from 'pino';
import {
  startMetricsServer,
  type DaemonMetrics,
  type HealthCheck,
  type MetricsServer,
} from './metrics.js';

/** Where the endpoint listens (port 0 picks a free one). */
export interface MetricsAddress {
  host: string;
  port: number;
}

/** The metrics endpoint; `listen()` opens it, `close()` ends it. */
export class MetricsEndpoint {
  private server: MetricsServer | undefined;

  constructor(
    private readonly metrics: DaemonMetrics,
    private readonly address: MetricsAddress,
    private readonly health: HealthCheck,
    private readonly logger: Logger,
  ) {}

  /** Opens the endpoint; rejects when the address cannot be bound. */
  async listen(): Promise<void> {
    this.server = await startMetricsServer(this.metrics, this.address, this.health);
    this.logger.info({ host: this.server.host, port: this.server.port }, 'metrics listening');
  }

  /** Closes the endpoint, if open. */
  async close(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}
