import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A test server listening on 127.0.0.1 (a free port), and a close that does not wait for keep-alive sockets. */
export async function listenOnLoopback(server: Server): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
