import { createServer } from 'node:net';

/**
 * A 127.0.0.1 port nothing listens on now (one just opened and closed): for a server to start on,
 * or for a client to find nothing at.
 */
export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
