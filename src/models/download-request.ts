import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressPolicy } from './address-policy.js';
import { DownloadFailure, secondsText } from './download-failure.js';

/** Redirects one request follows: a file host's CDN takes one or two. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** One GET of a model file. */
export interface FileRequest {
  readonly url: string;
  /** The first byte wanted (a `Range` request) when above 0. */
  readonly from: number;
  /** The addresses it may reach; undefined: any. */
  readonly policy: AddressPolicy | undefined;
  /** How long until the final answer's headers arrive, redirects included. */
  readonly connectTimeoutMs: number;
  /** Aborts the request (a cancel, the service closing). */
  readonly signal: AbortSignal;
}

/**
 * GETs a model file with node:http(s), which never decodes the body (the global `fetch` would
 * gunzip it, so a 50 KB answer could become a file of gigabytes) and takes the address policy's
 * `lookup`. Follows redirects itself, each hop checked again. Resolves with the answer once its
 * headers arrived, whatever its status; rejects with a {@link DownloadFailure}, or the signal's
 * reason when aborted.
 */
export function requestFile(request: FileRequest): Promise<IncomingMessage> {
  const headers = { 'Accept-Encoding': 'identity', ...(request.from > 0 ? { Range: `bytes=${request.from}-` } : {}) };
  return new Promise((resolve, reject) => {
    let current: http.ClientRequest | undefined;
    // The host of the hop under way, for the reasons (never the whole URL: it may carry credentials).
    let host = '';
    let settled = false;
    const finish = (error: unknown, response?: IncomingMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (response) return resolve(response);
      current?.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => finish(new DownloadFailure(`connect timeout: no answer from ${host} within ${secondsText(request.connectTimeoutMs)}`, true)),
      request.connectTimeoutMs,
    );
    const onAbort = () => finish(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (request.signal.aborted) return onAbort();

    const hop = (location: string, base: URL | undefined, redirects: number) => {
      if (!URL.canParse(location, base?.href))
        return finish(new DownloadFailure(`server answered a redirect to an invalid URL: ${location}`, true));
      try {
        const url = new URL(location, base);
        host = url.host;
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          throw new DownloadFailure(`refused: a redirect to ${url.protocol} (downloads follow http and https only)`, true);
        }
        const lookup = request.policy?.lookupFor(url);
        const get = url.protocol === 'https:' ? https.get : http.get;
        // `agent: false`: a connection of its own, so every hop connects (and is checked) afresh.
        const sent = get(url, { headers, agent: false, ...(lookup ? { lookup } : {}) }, (response) => {
          const next = response.headers.location;
          if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || next === undefined) return finish(undefined, response);
          response.destroy();
          if (redirects >= MAX_REDIRECTS) {
            return finish(new DownloadFailure(`server answered ${response.statusCode}: more than ${MAX_REDIRECTS} redirects`, true));
          }
          hop(next, url, redirects + 1);
        });
        current = sent;
        // Only the hop under way counts: the connection of a redirect left behind may end as it likes.
        sent.on('error', (error) => {
          if (sent !== current) return;
          finish(
            error instanceof DownloadFailure ? error : new DownloadFailure(`cannot connect: ${error.message}`, true, { cause: error }),
          );
        });
      } catch (error) {
        finish(error);
      }
    };
    hop(request.url, undefined, 0);
  });
}
