/** Assembles and starts a simulator: state and seed, HTTP(S) server, realtime hub, faults, log. */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../domain/index.js';
import { Faults, type FaultControl } from './faults.js';
import { requestListener } from './http/pipeline.js';
import { Router } from './http/router.js';
import { IdempotencyStore } from './idempotency.js';
import { Limits, type LimitSettings, type TokenUsage } from './limits/limits.js';
import { SimState } from './model/state.js';
import { generateToken, hashToken } from './model/tokens.js';
import {
  resolveSimulatorOptions,
  type ResolvedSimulatorOptions,
  type SimulatorOptions,
} from './options.js';
import { RealtimeHub, type RealtimeControl } from './realtime.js';
import { RequestLog, type RequestLogView } from './request-log.js';
import { loadFixture, readFixture } from './seed/fixture.js';
import { seedRandom } from './seed/random.js';
import type { Core } from './service/core.js';
import { createToken } from './service/projects.js';
import { SimService } from './service/service.js';
import { makeCertificate, writeCaFile } from './tls.js';

/** The limits as tests see them: where a token stands, and a reset. */
export interface LimitsControl {
  readonly settings: LimitSettings;
  /** Where the token (its value) stands against its burst window and daily quota. */
  usage(token: string): TokenUsage;
  /** The most requests one client IP had within one per-IP window so far. */
  ipPeak(): number;
  /** Forgets every count. */
  reset(): void;
}

/** A running simulator. */
export interface Simulator {
  /** The service base URL, ending in `/v1` (no trailing slash). */
  readonly baseUrl: string;
  /** The realtime WebSocket URL (`ws://` or `wss://`, ending in `/v1/realtime`). */
  readonly realtimeUrl: string;
  /** With `tls`: the path of the CA PEM that verifies the server. */
  readonly caFile: string | undefined;
  /** With `tls`: the CA PEM text itself (for undici `Agent({ connect: { ca } })`). */
  readonly ca: string | undefined;
  /** The first account token of the seeded user. */
  readonly token: string;
  /** Every token registered at start: the account tokens first, then the fixture's. */
  readonly tokens: string[];
  /** The seeded user's id. */
  readonly userId: string;
  /** The scripted API: reads and writes that broadcast like API writes. */
  readonly service: SimService;
  /** Fault injection. */
  readonly faults: FaultControl;
  /** The requests answered so far. */
  readonly requestLog: RequestLogView;
  /** The realtime endpoint: connections, raw sends, drops, refusals, `includeData`. */
  readonly realtime: RealtimeControl;
  /** The limits' counts. */
  readonly limits: LimitsControl;
  /** Stops listening, closes every connection and removes the temporary CA file. */
  close(): Promise<void>;
}

/** Starts a simulator and resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const resolved = resolveSimulatorOptions(options);
  const state = new SimState();
  const log = new RequestLog(resolved.requestLogLimit);
  const hub = new RealtimeHub(state, log, resolved.clock, resolved.realtimeData);
  const core: Core = {
    state,
    clock: resolved.clock,
    readings: resolved.readings,
    publish: (event) => hub.publish(event),
  };
  const { userId, tokens } = seed(core, resolved);
  const faults = new Faults();
  for (const rule of resolved.faults) faults.failNext(rule);
  const limits = new Limits(resolved.limits, resolved.clock);
  const listener = requestListener({
    core,
    router: new Router(),
    limits,
    idempotency: new IdempotencyStore(resolved.readings.idempotency),
    faults,
    log,
    maxBodyBytes: resolved.maxBodyBytes,
    delayMs: resolved.delayMs,
    paging: { defaultPageSize: resolved.defaultPageSize, maxPageSize: resolved.maxPageSize },
  });
  const certificate = resolved.tls ? await makeCertificate() : undefined;
  const server: Server = certificate
    ? createHttpsServer({ key: certificate.key, cert: certificate.cert }, listener)
    : createHttpServer(listener);
  server.on('upgrade', (request, socket, head: Buffer) => hub.handleUpgrade(request, socket, head));
  const port = await listen(server, resolved.host, resolved.port);
  const ca = certificate && writeCaFile(certificate.cert, resolved.caFile);
  const origin = `${urlHost(resolved.host)}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${resolved.tls ? 'https' : 'http'}://${origin}/v1`,
    realtimeUrl: `${resolved.tls ? 'wss' : 'ws'}://${origin}/v1/realtime`,
    caFile: ca?.path,
    ca: certificate?.cert,
    token: tokens[0] as string,
    tokens,
    userId,
    service: new SimService(core, (hash) => hub.disconnectToken(hash), resolved.seed),
    faults,
    requestLog: log,
    realtime: hub,
    limits: {
      settings: resolved.limits,
      usage: (token) => limits.usage(hashToken(token)),
      ipPeak: () => limits.ipPeak(),
      reset: () => limits.reset(),
    },
    close: () => {
      closing ??= shutdown(server, hub, () => ca?.remove());
      return closing;
    },
  };
}

/** Loads the fixture or generates data, then registers the account tokens. */
function seed(
  core: Core,
  resolved: ResolvedSimulatorOptions,
): { userId: string; tokens: string[] } {
  let userId: string;
  let fixtureTokens: string[] = [];
  if (resolved.fixture !== undefined) {
    const fixture =
      typeof resolved.fixture === 'string' ? readFixture(resolved.fixture) : resolved.fixture;
    ({ userId, tokens: fixtureTokens } = loadFixture(core, fixture));
  } else {
    userId = seedRandom(core, {
      seed: resolved.seed,
      projects: resolved.projects,
      tasks: resolved.tasks,
      readOnlyProjects: resolved.readOnlyProjects,
      membersPerProject: resolved.membersPerProject,
      resourcesPerProject: resolved.resourcesPerProject,
      dependenciesPerProject: resolved.dependenciesPerProject,
    });
  }
  const values = resolved.tokens.length > 0 ? resolved.tokens : [generateToken()];
  const accountTokens = values.map((value, index) => {
    try {
      return createToken(core, { value, userId, label: `Account token ${index + 1}` }).value;
    } catch (error) {
      throw new UsageError(`--token #${index + 1}: ${(error as Error).message}`);
    }
  });
  return { userId, tokens: [...accountTokens, ...fixtureTokens] };
}

/** The host to put in URLs: a wildcard address becomes loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function shutdown(server: Server, hub: RealtimeHub, removeCa: () => void): Promise<void> {
  await hub.close();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  removeCa();
}
