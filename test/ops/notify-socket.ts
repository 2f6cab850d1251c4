/**
 * A stand-in for systemd's notification socket: a Unix datagram socket (which Node cannot open)
 * served by python3, collecting each message; it closes the descriptors sent with a message,
 * which is how systemd-notify's barrier learns that its message was read.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

const LISTENER = `
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
while True:
    msg, fds, flags, addr = socket.recv_fds(s, 4096, 16)
    for fd in fds:
        os.close(fd)
    print(msg.decode().replace("\\n", " ").strip(), flush=True)
`;

/** A listening socket at `path` and the messages it has read so far, one string each. */
export interface NotifySocket {
  path: string;
  messages(): string[];
  /** Resolves once a message equal to `text` has arrived (waits up to `timeoutMs`). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

/** Starts a notification socket in `dir`; it is stopped when the test ends. */
export async function startNotifySocket(dir: string): Promise<NotifySocket> {
  const path = join(dir, 'notify.sock');
  const child = spawn('python3', ['-c', LISTENER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = () => output.split('\n').filter((line) => line !== '');
  const waitFor = async (text: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!lines().includes(text)) {
      if (Date.now() > deadline)
        throw new Error(`no ${text} on the socket (got ${lines().join(', ')})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await waitFor('listening');
  return { path, messages: () => lines().slice(1), waitFor };
}
