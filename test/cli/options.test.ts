import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CA_FILE_BYTES, trustedCertificates, UsageError } from '../../src/domain/index.js';
import {
  isLoopbackHost,
  MAX_TOKEN_FILE_BYTES,
  parseBaseUrl,
  readToken,
  refuseTokenFlag,
} from '../../src/cli/options.js';

describe('base URL', () => {
  it('accepts https anywhere and http on loopback only', () => {
    expect(parseBaseUrl('https://api.example.com/v1').href).toBe('https://api.example.com/v1');
    expect(parseBaseUrl('http://127.0.0.1:8080/v1/').href).toBe('http://127.0.0.1:8080/v1');
    expect(() => parseBaseUrl('http://api.example.com/v1')).toThrow(/not loopback/);
    expect(() => parseBaseUrl('http://10.0.0.1/v1')).toThrow(UsageError);
  });

  it('names a missing version segment or a non-URL', () => {
    expect(() => parseBaseUrl('https://api.example.com/')).toThrow(/\/v1/);
    expect(() => parseBaseUrl('not a url')).toThrow(/"not a url" is not a URL/);
    expect(() => parseBaseUrl(undefined)).toThrow(/--base-url is required/);
  });

  it('knows the loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '128.0.0.1', '0.0.0.0'].some(isLoopbackHost)).toBe(false);
  });
});

describe('token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-token-'));

  it('reads a token file, trimming the newline', () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'glt_test_file\n', { mode: 0o600 });
    const warnings: string[] = [];
    expect(readToken(file, {}, (line) => warnings.push(line))).toBe('glt_test_file');
    expect(warnings).toEqual([]);
  });

  it('warns, naming the mode, when group or others may read the token file', () => {
    const file = join(dir, 'open-token');
    writeFileSync(file, 'glt_test_file\n');
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    expect(readToken(file, {}, (line) => warnings.push(line))).toBe('glt_test_file');
    expect(warnings).toEqual([
      `token file ${file} is accessible by group or others (mode 0644); chmod 600 it`,
    ]);
    chmodSync(file, 0o640);
    expect(readToken(file, {}, (line) => warnings.push(line))).toBe('glt_test_file');
    expect(warnings[1]).toMatch(/\(mode 0640\)/);
  });

  it('reads no more of a token or CA file than its bound: /dev/zero and huge files are refused', () => {
    const huge = join(dir, 'huge-token');
    writeFileSync(huge, `glt_test_${'x'.repeat(MAX_TOKEN_FILE_BYTES)}`, { mode: 0o600 });
    for (const file of ['/dev/zero', huge]) {
      expect(() => readToken(file, {}, () => undefined)).toThrow(
        new UsageError(`token file ${file} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`),
      );
    }
    expect(() => readToken(dir, {}, () => undefined)).toThrow(`token file ${dir} is a directory`);
    expect(() => trustedCertificates('/dev/zero')).toThrow(
      new UsageError(`CA file /dev/zero is larger than ${MAX_CA_FILE_BYTES} bytes`),
    );
  });

  it('falls back to PROJMIRROR_TOKEN, then the systemd credential', () => {
    expect(readToken(undefined, { PROJMIRROR_TOKEN: 'glt_test_env' })).toBe('glt_test_env');
    writeFileSync(join(dir, 'projmirror-token'), 'glt_test_cred', { mode: 0o400 });
    expect(readToken(undefined, { CREDENTIALS_DIRECTORY: dir })).toBe('glt_test_cred');
  });

  it('refuses a missing or malformed token without echoing it', () => {
    expect(() => readToken(undefined, {})).toThrow(/no token/);
    const error = (() => {
      try {
        readToken(undefined, { PROJMIRROR_TOKEN: 'secret_value' });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.message).toMatch(/start with glt_/);
    expect(error?.message).not.toContain('secret_value');
    expect(() => readToken(join(dir, 'absent'), {})).toThrow(/cannot read token file .*ENOENT/);
  });

  it('refuses the token as a flag', () => {
    expect(() => refuseTokenFlag(['sync', '--token', 'glt_test_x'])).toThrow(/process list/);
    expect(() => refuseTokenFlag(['simulate', '--token', 'glt_test_x'])).not.toThrow();
  });
});
