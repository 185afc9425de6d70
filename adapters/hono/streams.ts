import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type IdentifierStream,
  isServiceError,
  type Service,
  ServiceError,
  STREAMS,
  type StreamCollection,
  WATCH_DEFAULTS,
} from '../../src/index.js';
import { STATUS_BY_CODE } from './errors.js';
import { SendTurns } from './send-turns.js';
import { bearerToken, hostAndOriginCheck, tokenCheck, type WebOriginOptions } from './web-origin.js';

/** Options of {@link attachStreams}: the router's access rules, where the routes are, and the bounds of each stream. */
export interface StreamsOptions extends WebOriginOptions {
  /** The path the router is mounted under (`/api`, say); the streams answer under it. Default: none. */
  readonly prefix?: string;
  /**
   * Most ids that may wait for one subscriber while its socket is full (changes of one id count
   * once). Past it the subscriber is closed with code 1013 and what waited is freed. Default
   * `WATCH_DEFAULTS.maxPendingIds` (25,000).
   */
  readonly maxPendingIds?: number;
  /**
   * Bytes a socket may hold unsent before its frames wait, coalescing, for it to drain. Default 64 KiB.
   */
  readonly highWaterBytes?: number;
  /** Most streams open at once; more are refused with 503. Default 10,000. */
  readonly maxStreams?: number;
  /** Where failures to read a stream's first frame are reported. Default `console`. */
  readonly logger?: { error(message: string, error?: unknown): void };
  /** One line per stream opened and closed (path and close code, never the query: it may hold the token). */
  readonly requestLog?: (line: string) => void;
}

/**
 * What {@link attachStreams} needs of a server: a `node:http` or `node:https` Server, or anything
 * with its `upgrade` event. Declared here rather than as `node:http`'s Server, so that a project
 * type-checking without Node's types (`types: []`) can import the adapter.
 */
export interface UpgradingServer {
  // The listener gets node:http's IncomingMessage, a Duplex and a Buffer: `any` here, as their types are Node's.
  on(event: 'upgrade', listener: (request: any, socket: any, head: any) => void): unknown;
  off(event: 'upgrade', listener: (request: any, socket: any, head: any) => void): unknown;
  listenerCount(event: 'upgrade'): number;
}

/** The streams attached to a server. */
export interface AttachedStreams {
  /** Streams open now (not those closed or closing). */
  readonly size: number;
  /**
   * Stops taking upgrades and closes every stream with code 1001 (going away), cutting those whose
   * peer does not answer within a second. Resolves once every socket is closed.
   */
  close(): Promise<void>;
}

/**
 * Close codes a stream ends with (besides the protocol's own, such as 1006 for a dropped
 * connection): see docs/streams.md.
 */
export const STREAM_CLOSE_CODES = {
  /** The server is closing. */
  goingAway: 1001,
  /** The subscriber fell more than `maxPendingIds` ids behind: reconnect for a fresh first frame. */
  tooSlow: 1013,
  /** The store could not be read (the first frame), or another failure on the service's side. */
  failed: 1011,
} as const;

/** Frames sent per turn of the event loop, across every stream (see {@link SendTurns}). */
const SENDS_PER_TURN = 64;

/** The prefix of the subprotocol a browser offers with its token (`bearer.<token as base64url>`). */
const BEARER_PROTOCOL = 'bearer.';
/** The plain subprotocol to offer beside the token's: the server answers it, so the token is not sent back. */
export const STREAM_PROTOCOL = 'identifiers';

/**
 * Serves the four change streams (`/conversations/stream/identifiers`, `/messages/…`,
 * `/annotations/…`, `/models/…`) as WebSockets on `server`, beside the HTTP routes on the same
 * port, with the router's Host, Origin and token rules (pass it the same options). An upgrade
 * that breaks a rule is answered 403 or 401, before it becomes a WebSocket. The token may come as
 * `Authorization: Bearer`, as the query parameter `token`, or as the subprotocol
 * `bearer.<token in base64url>` (browsers can set no header on a WebSocket). Upgrades for other
 * paths are left to the server's other `upgrade` listeners, or answered 404 when there are none.
 * `startHttpServer` calls it; call it yourself on a server of your own that serves the router.
 */
export function attachStreams(server: UpgradingServer, service: Service, options: StreamsOptions = {}): AttachedStreams {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const byPath = new Map<string, StreamCollection>(
    (Object.entries(STREAMS) as [StreamCollection, { path: string }][]).map(([collection, { path }]) => [prefix + path, collection]),
  );
  const refusal = hostAndOriginCheck(options);
  const tokenMatches = options.token === undefined ? undefined : tokenCheck(options.token);
  const maxStreams = options.maxStreams ?? 10_000;
  const highWater = options.highWaterBytes ?? 64 * 1024;
  const maxPendingIds = options.maxPendingIds ?? WATCH_DEFAULTS.maxPendingIds;
  const logger = options.logger ?? console;
  const sockets = new WebSocketServer({
    noServer: true,
    // Subscribers send nothing the stream reads: a large message is a mistake or an attack.
    maxPayload: 4 * 1024,
    perMessageDeflate: false,
    clientTracking: true,
    handleProtocols: (offered) => pickProtocol(offered),
  });
  let closing = false;
  const turns = new SendTurns(SENDS_PER_TURN);
  /** Sockets whose stream runs: not those closing (a stalled peer's close waits for it, up to 30 s). */
  const streaming = new Set<WebSocket>();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const collection = byPath.get(url.pathname);
    if (collection === undefined) {
      // Another listener may serve this path; with none, nobody else would answer it.
      if (server.listenerCount('upgrade') === 1) refuse(socket, new ServiceError('NOT_FOUND', `No stream at ${url.pathname}.`), 404);
      return;
    }
    const refused =
      refusal(
        (name) => headerOf(request, name),
        request.method ?? 'GET',
        () => 'localhost',
      ) ??
      (tokenMatches && !tokenMatches(presentedToken(request, url))
        ? new ServiceError(
            'UNAUTHORIZED',
            'This service needs a token: send "Authorization: Bearer <token>", the query parameter "token", or the subprotocol "bearer.<token as base64url>".',
          )
        : undefined);
    if (refused) return refuse(socket, refused);
    if (closing) return refuse(socket, new ServiceError('STORE_UNAVAILABLE', 'The server is closing.'), 503);
    if (streaming.size >= maxStreams) {
      return refuse(socket, new ServiceError('STORE_UNAVAILABLE', `This server has ${maxStreams} streams open, its most.`), 503);
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serve(ws, collection, url.pathname));
  };

  const serve = (ws: WebSocket, collection: StreamCollection, path: string) => {
    options.requestLog?.(`WS ${path} open`);
    const opened = performance.now();
    let stream: IdentifierStream | undefined;
    // Listened to first: a stream refused below (the service closed) is logged closed too.
    ws.on('close', (code) => {
      void stream?.return();
      options.requestLog?.(`WS ${path} closed ${code} after ${Math.round(performance.now() - opened)} ms`);
    });
    // An error closes the socket (and so the stream); nothing more to do with it.
    ws.on('error', () => undefined);
    try {
      stream = service.watch({ collection, maxPendingIds });
    } catch (error) {
      // The service was closed before the server: nothing to stream.
      ws.close(STREAM_CLOSE_CODES.goingAway, isServiceError(error) ? error.code : 'INTERNAL');
      return;
    }
    const watched = stream;
    streaming.add(ws);
    void watched.ended.then(() => streaming.delete(ws));
    void (async () => {
      try {
        for await (const frame of watched) {
          await turns.take();
          if (ws.readyState !== ws.OPEN) break;
          const sent = new Promise<void>((resolve) => ws.send(JSON.stringify(frame), () => resolve()));
          // A full socket: later changes wait in the stream, coalescing by id, until this frame is
          // written out or the stream gives up on the subscriber (`ended`).
          if (ws.bufferedAmount > highWater) await Promise.race([sent, watched.ended]);
        }
        ws.close(STREAM_CLOSE_CODES.goingAway, 'The service is closing.');
      } catch (error) {
        if (isServiceError(error) && error.code === 'TOO_SLOW') {
          ws.close(STREAM_CLOSE_CODES.tooSlow, 'Too slow: reconnect for a fresh list.');
        } else {
          logger.error(`The stream ${path} failed.`, error);
          ws.close(STREAM_CLOSE_CODES.failed, isServiceError(error) ? error.code : 'INTERNAL');
        }
      }
    })();
  };

  server.on('upgrade', onUpgrade);
  return {
    get size() {
      return streaming.size;
    },
    async close() {
      closing = true;
      server.off('upgrade', onUpgrade);
      const open = [...sockets.clients];
      await Promise.all(
        open.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              ws.once('close', () => resolve());
              ws.close(STREAM_CLOSE_CODES.goingAway, 'The server is closing.');
              // A peer that does not answer the close (or reads nothing) is cut.
              setTimeout(() => ws.terminate(), 1_000).unref();
            }),
        ),
      );
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}

/** The token of an upgrade: its Authorization header, its `token` query parameter, or its `bearer.` subprotocol. */
function presentedToken(request: IncomingMessage, url: URL): string | undefined {
  const header = bearerToken(headerOf(request, 'authorization'));
  if (header !== undefined) return header;
  const query = url.searchParams.get('token');
  if (query !== null) return query;
  for (const protocol of protocolsOf(request)) {
    if (protocol.startsWith(BEARER_PROTOCOL)) return Buffer.from(protocol.slice(BEARER_PROTOCOL.length), 'base64url').toString('utf8');
  }
  return undefined;
}

const protocolsOf = (request: IncomingMessage) =>
  (headerOf(request, 'sec-websocket-protocol') ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol.length > 0);

/**
 * The subprotocol answered: one that does not carry the token (so the token is not sent back),
 * else the token's own (a browser fails a connection whose offered protocols all go unanswered).
 */
function pickProtocol(offered: Set<string>): string | false {
  let fallback: string | false = false;
  for (const protocol of offered) {
    if (!protocol.startsWith(BEARER_PROTOCOL)) return protocol;
    fallback = protocol;
  }
  return fallback;
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Answers an upgrade that is refused with the router's error shape, and closes its socket. */
function refuse(socket: Duplex, error: ServiceError, status: number = STATUS_BY_CODE[error.code]): void {
  const body = JSON.stringify({ error: error.toJSON() });
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Refused'}`,
    'Content-Type: application/json; charset=UTF-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(error.code === 'UNAUTHORIZED' ? ['WWW-Authenticate: Bearer'] : []),
    'Connection: close',
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};
