/**
 * A TCP proxy that stands for a database on another machine (benchmark 9c): it forwards
 * 127.0.0.1:<port> and holds every chunk `delayMs` in each direction before passing it on, in
 * order. It runs in its own process (`node delay-proxy.js PORT DELAY_MS`, printing its own port
 * on one line), so that its timers never wait on the benchmark's event loop, and with Nagle's
 * algorithm off on both sides, as node-postgres sets it: the only latency added is `delayMs`.
 */
import { connect, createServer, type Socket } from 'node:net';

const [targetPort, delayMs] = process.argv.slice(2).map(Number) as [number, number];

function forward(from: Socket, to: Socket): void {
  from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
}

const server = createServer({ noDelay: true }, (client) => {
  const upstream = connect({ port: targetPort, host: '127.0.0.1', noDelay: true });
  for (const socket of [client, upstream]) socket.on('error', () => undefined);
  forward(client, upstream);
  forward(upstream, client);
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
