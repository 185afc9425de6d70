import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { PROGRAM } from './command.js';
import { CommandFailure } from './failures.js';

/** How long one request may take: every route the commands call answers at once, a download included (it runs in the background), but a backup (which says its own). */
const REQUEST_TIMEOUT_MS = 30_000;

/** The routes of a running server, as the model commands call them; every failure is a one-line {@link CommandFailure}. */
export interface ApiClient {
  /** The server's base URL, as messages name it. */
  readonly url: string;
  /** A GET's body as it comes, once the answer has begun (an error answer is a CommandFailure); no time bound on the body. */
  stream(method: 'GET', route: string): Promise<AsyncIterable<Uint8Array>>;
  /** POSTs a file as the body (`application/json`), streamed from disk, and answers the JSON answer; no time bound. */
  upload<T>(route: string, file: string): Promise<T>;
  /**
   * The answer's JSON; `undefined` for an empty answer (204). `body`, when given, is sent as JSON.
   * `timeoutMs`: how long the request may take, for a route that works before it answers (a backup).
   */
  call<T>(method: 'GET' | 'POST', route: string, body?: unknown, timeoutMs?: number): Promise<T>;
}

/** Why a request never got an answer, in a few words: fetch's own message is only "fetch failed". */
function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      // fetch refuses the ports browsers refuse (the "bad ports": 9, 25, 6000, …), before connecting.
      if (cause?.message === 'bad port') return 'fetch refuses to connect to that port';
      return cause?.message ?? (error as Error).message;
  }
}

/** The message of an error answer (`{ "error": { "message" } }`), on one line, or the status when it has none. */
function messageOf(status: number, statusText: string, text: string): string {
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
  } catch {
    // Not this service's error shape: a proxy's page, say.
  }
  const said = typeof message === 'string' && message ? message : `${status} ${statusText}`.trim();
  const hint = status === 401 ? " Set API_TOKEN to the server's token." : '';
  return `${said.replace(/\s+/g, ' ')}${hint}`;
}

/**
 * A client of the server at `url` (no trailing slash), which sends `token` as
 * `Authorization: Bearer` when set: `API_TOKEN`, as `serve` requires it of every request.
 */
export function createApiClient(url: string, token: string | undefined): ApiClient {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const unreachable = (error: unknown, method: string, route: string, timeoutMs = REQUEST_TIMEOUT_MS) => {
    if ((error as Error).name === 'TimeoutError')
      return new CommandFailure(`${url} did not answer ${method} ${route} within ${timeoutMs / 1000} s.`);
    return new CommandFailure(
      `Cannot reach ${url} (${whyUnreachable(error)}). Is the server running (${PROGRAM} serve)? ` +
        'Give its address with --url or --host and --port, or HOST and PORT.',
    );
  };
  return {
    url,
    async stream(method, route) {
      let response: Response;
      try {
        response = await fetch(`${url}${route}`, { method, headers });
      } catch (error) {
        throw unreachable(error, method, route);
      }
      if (!response.ok) throw new CommandFailure(messageOf(response.status, response.statusText, await response.text()));
      if (!response.body) return (async function* () {})();
      return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    },
    async upload<T>(route: string, file: string): Promise<T> {
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${url}${route}`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
          duplex: 'half',
        } as RequestInit);
        text = await response.text();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CommandFailure(`There is no file ${file}.`);
        throw unreachable(error, 'POST', route);
      }
      if (!response.ok) throw new CommandFailure(messageOf(response.status, response.statusText, text));
      return JSON.parse(text) as T;
    },
    async call<T>(method: 'GET' | 'POST', route: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
      const json = body === undefined ? {} : { headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${url}${route}`, { method, headers, ...json, signal: AbortSignal.timeout(timeoutMs) });
        text = await response.text();
      } catch (error) {
        throw unreachable(error, method, route, timeoutMs);
      }
      if (!response.ok) throw new CommandFailure(messageOf(response.status, response.statusText, text));
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new CommandFailure(`${url} answered ${method} ${route} with something other than JSON: is it this service?`);
      }
    },
  };
}
