/**
 * One HTTP request at a time to a benchmark's server on 127.0.0.1, timed from the request to the
 * answer's last byte (bench/search.ts, bench/postgres.ts).
 */
import { type Agent, request } from 'node:http';

/** A request's answer: how long it took, its status, and its body's bytes. */
export interface Answer {
  readonly ms: number;
  readonly status: number;
  readonly bytes: number;
}

/** Sends one request through `agent` (a kept-alive one, so that the figures are not the connection's); `body` is JSON. */
export function send(agent: Agent, port: number, method: 'GET' | 'POST', pathname: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ ms: performance.now() - t0, status: response.statusCode ?? 0, bytes }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
