import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Service } from '../../src/index.js';
import { createHonoRouter, type HonoRouterOptions } from './router.js';
import { attachStreams, type StreamsOptions } from './streams.js';
import { isLoopbackHost } from './web-origin.js';

/** Options of {@link startHttpServer}: where to listen, the router's options, and socket limits. */
export interface HttpServerOptions extends HonoRouterOptions, Pick<StreamsOptions, 'maxPendingIds' | 'highWaterBytes' | 'maxStreams'> {
  /** Port to listen on. Default 39300 (the port Pieces OS uses); 0 picks a free one. */
  readonly port?: number;
  /**
   * Address to listen on. Default `127.0.0.1`. Any address other than a loopback one needs a
   * `token`: the server refuses to start without one, since the network could then reach it.
   */
  readonly host?: string;
  /** Most open connections at once, change streams (WebSockets) included; more are closed as they arrive. Default 256. */
  readonly maxConnections?: number;
  /** Time a client has to send a request's headers. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** Time a client has to send a whole request, body included. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /** A connection with no traffic in either direction for this long is closed. Default 120 s. */
  readonly socketTimeoutMs?: number;
  /** On `close()`, how long requests under way may take to finish before their sockets are cut. Default 10 s. */
  readonly shutdownGraceMs?: number;
}

/** A listening server. */
export interface RunningHttpServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Change streams (WebSockets) open now: not those closed, or closing. */
  readonly streams: number;
  /**
   * Stops accepting connections, lets requests under way finish (each answered with
   * `Connection: close`), and resolves once every connection is closed, cutting the ones still
   * open after `shutdownGraceMs`; change streams are closed first (code 1001). It does not close
   * the service: do that afterwards.
   */
  close(): Promise<void>;
}

/**
 * Serves the service's router on Node's HTTP server with limits fit for a machine a browser also
 * runs on: loopback by default, a token required for any other address, timeouts against slow
 * clients, a connection cap, and a graceful `close()`. The change streams (WebSockets, see
 * `attachStreams`) are served on the same port, under the same rules.
 */
export async function startHttpServer(service: Service, options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.token) {
    throw new Error(
      `Refusing to listen on ${host} without a token: any machine that reaches this address could read and change the data. ` +
        'Set a token (API_TOKEN for the example server), or listen on 127.0.0.1.',
    );
  }
  const listener = getRequestListener(createHonoRouter(service, options).fetch);
  let closing = false;
  // Answers not yet begun: on close they are told to close their connection too.
  const pending = new Set<ServerResponse>();
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node checks the header and request timeouts on this interval (30 s by default).
  const checkEveryMs = headersTimeout > 0 ? Math.min(1_000, headersTimeout) : 1_000;
  const server = createServer({ connectionsCheckingInterval: checkEveryMs }, (request: IncomingMessage, response: ServerResponse) => {
    // Once closing, every answer tells its client not to send more on this connection.
    if (closing) response.shouldKeepAlive = false;
    pending.add(response);
    response.once('close', () => pending.delete(response));
    void listener(request, response);
  });
  server.maxConnections = options.maxConnections ?? 256;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = options.requestTimeoutMs ?? 60_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.timeout = options.socketTimeoutMs ?? 120_000;
  const streams = attachStreams(server, service, options);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 39300, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 39300);
  const graceMs = options.shutdownGraceMs ?? 10_000;
  let closed: Promise<void> | undefined;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    get streams() {
      return streams.size;
    },
    close() {
      closed ??= shutDown(server, graceMs, streams.close, () => {
        closing = true;
        for (const response of pending) if (!response.headersSent) response.shouldKeepAlive = false;
      });
      return closed;
    },
  };
}

async function shutDown(server: Server, graceMs: number, closeStreams: () => Promise<void>, markClosing: () => void): Promise<void> {
  markClosing();
  await closeStreams();
  const done = new Promise<void>((resolve) => {
    // net's close, not http's: http's also cuts idle keep-alive connections at once, and a client
    // may be sending its next request on one of them right now. Left open, each either carries one
    // more request (answered with `Connection: close`) or ends at its keep-alive timeout.
    NetServer.prototype.close.call(server, () => resolve());
  });
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await done;
  } finally {
    clearTimeout(timer);
    // http's own close, now that nothing is left to cut: it stops the timeout checks.
    server.close(() => undefined);
  }
}
