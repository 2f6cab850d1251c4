/**
 * The one TLS trust policy of every connection to the service (HTTP and realtime): always
 * verified, against Node's default roots plus the certificates of an optional CA file, which adds
 * to the trust and never replaces it.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { UsageError } from './errors.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The `ca` list for TLS: undefined without a file, so the default trust (including
 * `NODE_EXTRA_CA_CERTS`) applies unchanged; else the default roots and the file's certificates.
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
