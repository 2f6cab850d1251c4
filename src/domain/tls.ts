/**
 * The one TLS trust policy of every connection to the service (HTTP and realtime): always
 * verified, against Node's default roots plus the certificates of an optional CA file, which adds
 * to the trust and never replaces it.
 */
import { rootCertificates } from 'node:tls';
import { UsageError } from './errors.js';
import { readSmallFile } from './small-file.js';

/** The largest CA file read, in bytes: a bundle of every public root takes about 220 KB. */
export const MAX_CA_FILE_BYTES = 1024 * 1024;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The `ca` list for TLS: undefined without a file, so the default trust (including
 * `NODE_EXTRA_CA_CERTS`) applies unchanged; else the default roots and the file's certificates.
 */
export function trustedCertificates(caFile: string | undefined): string[] | undefined {
  if (caFile === undefined) return undefined;
  const { text } = readSmallFile(caFile, MAX_CA_FILE_BYTES, `CA file ${caFile}`);
  const extra = text.match(PEM_CERTIFICATE);
  if (!extra) throw new UsageError(`CA file ${caFile} holds no PEM certificate`);
  return [...rootCertificates, ...extra];
}
