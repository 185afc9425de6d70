import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { ServiceError } from '../../src/index.js';
import type { RouterEnv } from './errors.js';

/** Who may talk to the router besides programs on this machine. */
export interface WebOriginOptions {
  /**
   * Host names (without port) accepted in the `Host` header besides loopback ones (`localhost`,
   * `*.localhost`, `127.0.0.0/8`, `[::1]`), which are always accepted with any port. A request
   * naming another host is refused before any work: that is what defeats DNS rebinding, where a
   * web page's own host name is pointed at 127.0.0.1. `'*'` accepts any host (only behind a proxy
   * that checks it).
   */
  readonly allowedHosts?: readonly string[] | '*';
  /**
   * Web origins whose pages may call the service, e.g. a browser extension
   * (`chrome-extension://<id>`) or a local web app (`http://localhost:5173`). A request that
   * carries any other `Origin` (including `null`) is refused, and CORS is answered for these only.
   * Default: none. Programs that send no `Origin` (Node, the official client, curl) are not affected.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * A secret every request must carry as `Authorization: Bearer <token>` (compared in constant
   * time). Optional on loopback; `startHttpServer` requires one for any other address.
   */
  readonly token?: string;
}

/** Headers a page from an allowed origin may send; the official client sends these. */
const ALLOWED_REQUEST_HEADERS = ['Content-Type', 'Authorization', 'X-Application-ID'];

/**
 * The router's first middlewares: refuse foreign hosts and origins, answer CORS for allowed
 * origins (preflight included), then check the token. Each refusal is a ServiceError, so it is
 * answered in the router's one error shape.
 */
export function webOriginGuards(options: WebOriginOptions): MiddlewareHandler<RouterEnv>[] {
  const origins = new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
  const isAllowedOrigin = (origin: string) => origins.has(normalizeOrigin(origin));

  const refusal = hostAndOriginCheck(options);

  const corsForAllowed = cors({
    origin: (origin) => (origin && isAllowedOrigin(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ALLOWED_REQUEST_HEADERS,
    exposeHeaders: ['Link'],
    maxAge: 600,
  });

  // One synchronous middleware, not one per rule: each costs every request a step of Hono's
  // chain. A refusal thrown here reaches the router's onError.
  const guard: MiddlewareHandler<RouterEnv> = (c, next) => {
    setPageSafetyHeaders(c);
    const refused = refusal(
      (name) => c.req.header(name),
      c.req.method,
      () => new URL(c.req.url).host,
    );
    if (refused) throw refused;
    // Only requests from web pages carry Origin, and only those need CORS: programs (the official
    // client, curl) skip it, and keep the fast path its after-the-answer headers would cost.
    return c.req.header('origin') === undefined ? next() : corsForAllowed(c, next);
  };

  const middlewares = [guard];
  if (options.token !== undefined) middlewares.push(requireToken(options.token));
  return middlewares;
}

/** On every answer, refusals too: no page may frame one or run one as a script. */
const PAGE_SAFETY_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Frame-Options', 'DENY'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
];

/**
 * Sets {@link PAGE_SAFETY_HEADERS} before the route answers. Under @hono/node-server they go on
 * Node's response, which merges them into whatever answer is written (errors and streams too):
 * set with `c.header`, they would make Hono hold the answer's headers in a web `Headers` object,
 * which the server then copies and sorts on every request, about a tenth of a cached read's cost.
 * Elsewhere (`router.request()`, other runtimes) they are set with `c.header`. Not hono's `secure-headers`:
 * it sets its headers after `await next()`, on the finished answer, which costs @hono/node-server
 * its fast path (the body then goes through a web stream).
 */
function setPageSafetyHeaders(c: Context<RouterEnv>): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function') {
    for (const [name, value] of PAGE_SAFETY_HEADERS) outgoing.setHeader(name, value);
  } else {
    for (const [name, value] of PAGE_SAFETY_HEADERS) c.header(name, value);
  }
}

/**
 * The host and origin rules of {@link WebOriginOptions}, for a request of any transport (the
 * router's requests, a WebSocket's upgrade): answers why `headers` are refused (FORBIDDEN), or
 * undefined. `fallbackHost` answers the host a request without a Host header was sent to.
 */
export function hostAndOriginCheck(
  options: WebOriginOptions,
): (header: (name: string) => string | undefined, method: string, fallbackHost: () => string) => ServiceError | undefined {
  const hosts = options.allowedHosts === '*' ? '*' : new Set((options.allowedHosts ?? []).map(normalizeHostName));
  const origins = new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
  return (header, method, fallbackHost) => {
    const hostHeader = header('host') ?? fallbackHost();
    const hostName = hostNameOf(hostHeader);
    if (hosts !== '*' && !isLoopbackHost(hostName) && !hosts.has(hostName)) {
      return new ServiceError(
        'FORBIDDEN',
        `Requests for host "${hostHeader}" are refused; this service answers loopback names and its configured hosts.`,
      );
    }
    const origin = header('origin');
    if (origin !== undefined) {
      if (!origins.has(normalizeOrigin(origin))) {
        return new ServiceError(
          'FORBIDDEN',
          `Requests from the web origin "${origin}" are refused; allow it in the service's allowed origins.`,
        );
      }
    } else if (isCrossSiteFetch(header('sec-fetch-site'), header('sec-fetch-mode'), header('sec-fetch-dest'), method)) {
      // A browser request without Origin (an image, a script tag) from another site: never ours.
      return new ServiceError('FORBIDDEN', 'Cross-site requests from web pages are refused.');
    }
    return undefined;
  };
}

/**
 * Whether a presented token is `token`, comparing digests in constant time (equal lengths, so the
 * comparison takes the same time whatever was sent).
 */
export function tokenCheck(token: string): (presented: string | undefined) => boolean {
  if (token.length === 0) throw new Error('The token must not be empty.');
  const expected = digest(token);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected);
}

/**
 * Refuses requests without `Authorization: Bearer <token>`, comparing digests in constant time.
 * Not hono's `bearer-auth`: it accepts only RFC 6750 token characters, so a token such as
 * "correct horse battery staple" (API_TOKEN is free text) could never be sent; it answers a
 * malformed header 400 rather than 401; and it hashes both sides with WebCrypto's async digest on
 * every request, where this hashes the presented token once, synchronously.
 */
function requireToken(token: string): MiddlewareHandler<RouterEnv> {
  const matches = tokenCheck(token);
  return async (c, next) => {
    if (!matches(bearerToken(c.req.header('authorization')))) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new ServiceError('UNAUTHORIZED', 'This service needs a token: send "Authorization: Bearer <token>".');
    }
    await next();
  };
}

/** The token of an `Authorization: Bearer <token>` header. */
export const bearerToken = (header: string | undefined): string | undefined => /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True for names and addresses that can only mean this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHostName(host);
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    /^127(?:\.\d{1,3}){3}$/.test(name) ||
    name === '::1' ||
    name === '0:0:0:0:0:0:0:1' ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(name)
  );
}

/** `[::1]:80` → `::1`, `Example.COM.:8080` → `example.com`. */
function hostNameOf(hostHeader: string): string {
  const bracketed = /^\[([^\]]*)\]/.exec(hostHeader);
  if (bracketed) return normalizeHostName(bracketed[1]!);
  const colon = hostHeader.indexOf(':');
  return normalizeHostName(colon === -1 ? hostHeader : hostHeader.slice(0, colon));
}

const normalizeHostName = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
const normalizeOrigin = (origin: string) => origin.trim().toLowerCase().replace(/\/+$/, '');

/**
 * Fetch metadata of a browser request from another site. Top-level navigations (a link followed)
 * are let through: the page that linked cannot read what they answer. A navigation inside a frame
 * is not: the answer would be rendered in the linking page's process.
 */
function isCrossSiteFetch(site: string | undefined, mode: string | undefined, dest: string | undefined, method: string): boolean {
  if (site !== 'cross-site' && site !== 'same-site') return false;
  const topLevel = mode === 'navigate' && (dest === undefined || dest === 'document');
  return !(topLevel && (method === 'GET' || method === 'HEAD'));
}
