import { UsageError } from './failures.js';

/**
 * A port number from the command line (`--port`) or the environment (`PORT`), checked here so a
 * wrong one is a usage error naming where it came from, not Node's RangeError from `listen`.
 * `anyFree`: 0 is allowed, meaning any free port (to listen on; a client cannot connect to it).
 */
export function parsePort(text: string, source: string, anyFree: boolean): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  const lowest = anyFree ? 0 : 1;
  if (!(port >= lowest && port <= 65535)) {
    const zero = !anyFree && port === 0 ? ' (0, any free port, is for serve)' : '';
    throw new UsageError(`${source} must be a port number from ${lowest} to 65535, not "${text}"${zero}`);
  }
  return port;
}
