/**
 * The HTTPS certificate: a self-signed certificate for 127.0.0.1, ::1 and localhost, made at
 * start. It is its own CA, so clients trust it by adding its PEM (written to `caFile`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/** The certificate's validity. */
export const CERTIFICATE_VALIDITY_DAYS = 30;
const MS_PER_DAY = 86_400_000;

/** A key and certificate in PEM. */
export interface Certificate {
  key: string;
  cert: string;
}

/** Makes a fresh self-signed certificate for the loopback names. */
export async function makeCertificate(now = Date.now()): Promise<Certificate> {
  const notBeforeDate = new Date(now - MS_PER_DAY);
  const pems = await generate([{ name: 'commonName', value: 'projmirror simulator' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(now + CERTIFICATE_VALIDITY_DAYS * MS_PER_DAY),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** Writes the CA PEM to `file`, or to a fresh temporary file; returns the path and a cleanup. */
export function writeCaFile(cert: string, file?: string): { path: string; remove: () => void } {
  if (file !== undefined) {
    writeFileSync(file, cert, { mode: 0o644 });
    return { path: file, remove: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-sim-ca-'));
  const path = join(dir, 'ca.pem');
  writeFileSync(path, cert, { mode: 0o644 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
