/** The one undici Agent behind the client: keep-alive, timeouts, verified TLS, no redirects. */
import { Agent } from 'undici';
import { trustedCertificates } from '../domain/index.js';
import type { ResolvedOptions } from './options.js';

/** Builds the agent. Redirects are never followed: undici follows none without an interceptor. */
export function createAgent(options: ResolvedOptions): Agent {
  const ca = trustedCertificates(options.caFile);
  return new Agent({
    connections: options.maxConnections,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    connect: {
      timeout: options.connectTimeoutMs,
      rejectUnauthorized: true,
      ...(ca ? { ca } : {}),
    },
  });
}
