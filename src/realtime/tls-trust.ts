/** The certificates a realtime connection trusts: Node's default roots plus an optional CA file. */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { UsageError } from '../domain/index.js';

const PEM_CERTIFICATE_MARK = '-----BEGIN CERTIFICATE-----';

/**
 * The `ca` list for TLS: undefined (Node's defaults) without a file, else the default roots and
 * the file's certificates, so a private CA is added to the trust and never replaces it.
 */
export function trustedCertificates(caFile: string | undefined): string[] | undefined {
  if (caFile === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(caFile, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read CA file ${caFile}: ${reason}`);
  }
  if (!pem.includes(PEM_CERTIFICATE_MARK)) {
    throw new UsageError(`CA file ${caFile} holds no PEM certificate`);
  }
  return [...rootCertificates, pem];
}
