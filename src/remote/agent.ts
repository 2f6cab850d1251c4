/** The one undici Agent behind the client: keep-alive, timeouts, verified TLS, no redirects. */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { UsageError } from '../domain/index.js';
import type { ResolvedOptions } from './options.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The trusted CAs: Node's default roots plus those of `caFile`. Undefined without a file, so the
 * default trust (including `NODE_EXTRA_CA_CERTS`) applies unchanged.
 */
export function trustedCertificates(caFile: string | undefined): string[] | undefined {
  if (caFile === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(caFile, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read CA file ${caFile}: ${reason}`);
  }
  const extra = text.match(PEM_CERTIFICATE);
  if (!extra) throw new UsageError(`CA file ${caFile} holds no PEM certificate`);
  return [...rootCertificates, ...extra];
}

/** Builds the agent. Redirects are never followed: undici follows none without an interceptor. */
export function createAgent(options: ResolvedOptions): Agent {
  const ca = trustedCertificates(options.caFile);
  return new Agent({
    connections: options.maxConnections,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    maxResponseSize: options.maxResponseBytes,
    connect: {
      timeout: options.connectTimeoutMs,
      rejectUnauthorized: true,
      ...(ca ? { ca } : {}),
    },
  });
}
