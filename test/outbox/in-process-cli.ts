/** Runs the CLI in this process and captures what it writes to stdout and stderr. */
import { vi } from 'vitest';
import { runCli } from '../../src/cli/main.js';

/** `projmirror ...argv` in-process: its exit code and output (pino logs bypass the capture). */
export async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await runCli(argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
