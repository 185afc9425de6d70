/**
 * Helpers of the real-browser test (browser.test.ts): the pages a hostile (or an allowed) web site
 * serves, the plain node:http server that serves them, Chromium's launch, and a log of what the
 * browser sent the service and what the service answered.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../helpers/requirements.js';
import { BROWSER_PREFIX } from '../helpers/run-folder.js';
import { shortTempDir } from '../helpers/temp-dir.js';

/** A host name Chromium resolves to 127.0.0.1, standing for a site whose DNS was rebound to this machine. */
export const REBOUND_HOST = 'rebind.test';

/** One attempt as the page reports it in `window.results`: what it sent and what it could read. */
export interface PageResult {
  /** Its number, which the page sends along as the `attempt` query parameter. */
  readonly attempt: number;
  readonly label: string;
  /** What makes the request: fetch, image, script, beacon, form or frame. */
  readonly type: string;
  readonly method: string;
  /** The path on the service, percent-encoded as sent. */
  readonly path: string;
  /** HTTP status, when the page could see it (a readable response); null otherwise. */
  readonly status: number | null;
  /** Whatever the page could read of the answer; null when it could read nothing. */
  readonly read: string | null;
  readonly note: string;
}

/**
 * The page. With `mode=attack` it tries what any web site can do to a service on this machine
 * without its permission; with `mode=use` it makes the calls a legitimate web app would make (a
 * preflighted JSON POST and a read). Either way it records each attempt in `window.results` and sets
 * `window.done`. `service` is the service's URL, `id` a conversation to aim at. The parameters come
 * from the page's query string, or from `params` when given (for a page written into another document).
 */
export function attackerPageHtml(params?: Record<string, string>): string {
  // URLSearchParams percent-encodes '<', so the JSON string cannot close the script element.
  const given = params ? `<script>window.PAGE_PARAMS = ${JSON.stringify(new URLSearchParams(params).toString())};</script>` : '';
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>attacker page</title>
<style>body{font:13px sans-serif} td,th{border:1px solid #999;padding:2px 6px} iframe{width:360px;height:60px} img{width:60px;height:60px}</style>
</head><body>
<h1>Requests from another web origin</h1>
<table id="table"><tr><th>attempt</th><th>status seen</th><th>read by the page</th><th>note</th></tr></table>
<div id="sink"></div>
${given}
<script>
${PAGE_SCRIPT}
</script>
</body></html>`;
}

// Plain browser JavaScript in a string (not a function's source), so no compiler rewrites it.
const PAGE_SCRIPT = String.raw`
const params = new URLSearchParams(window.PAGE_PARAMS || location.search);
const service = params.get('service');
const id = encodeURIComponent(params.get('id') || 'none');
const ATTEMPT_MS = 5000;
window.results = [];
window.done = false;
let attempts = 0;

// Runs one attempt within ATTEMPT_MS and records what the page got to see of the answer. The URL
// carries ?attempt=N, which the service ignores, so the test can match the service's answers to it.
async function attempt(label, type, method, path, run) {
  const number = attempts++;
  let outcome;
  try {
    const timeout = new Promise((resolve) => setTimeout(() => resolve({ note: 'timed out' }), ATTEMPT_MS));
    outcome = await Promise.race([run(service + path + '?attempt=' + number), timeout]);
  } catch (error) {
    outcome = { note: String(error) };
  }
  const result = { attempt: number, label, type, method, path, status: outcome.status ?? null, read: outcome.read ?? null, note: outcome.note ?? '' };
  window.results.push(result);
  const row = document.getElementById('table').insertRow();
  for (const cell of [label, result.status ?? '-', result.read === null ? '(nothing)' : result.read.slice(0, 80), result.note]) {
    row.insertCell().textContent = String(cell);
  }
}

// fetch in no-cors mode: the browser sends it, the page gets an opaque answer (status 0, no body).
const noCors = (init) => async (url) => {
  const response = await fetch(url, { mode: 'no-cors', ...init });
  if (response.type === 'opaque') return { note: 'opaque answer' };
  return { status: response.status, read: await response.text() };
};

// An ordinary CORS fetch: readable only if the service answers with CORS headers for this origin.
const corsFetch = (init) => async (url) => {
  const response = await fetch(url, init);
  return { status: response.status, read: await response.text() };
};

// An <img> or <script> element: no Origin header, no preflight, the oldest cross-site requests.
const element = (tag) => (url) =>
  new Promise((resolve) => {
    const node = document.createElement(tag);
    node.onload = () => resolve(tag === 'img' ? { read: 'image ' + node.naturalWidth + 'x' + node.naturalHeight } : { note: 'script ran' });
    node.onerror = () => resolve({ note: 'error event' });
    node.src = url;
    document.getElementById('sink').append(node);
  });

// navigator.sendBeacon: a POST the browser sends even as the page goes away.
const beacon = (body) => async (url) => ({ note: navigator.sendBeacon(url, body) ? 'queued' : 'refused by the browser' });

// An iframe that loads src, and for a form page the form's submission too; then the page tries to
// read what the frame shows.
const frame = (src, loads) =>
  new Promise((resolve) => {
    const node = document.createElement('iframe');
    let seen = 0;
    node.onload = () => {
      if (++seen < loads) return;
      let read = null;
      try {
        read = node.contentDocument ? node.contentDocument.body.innerText : null;
      } catch {}
      resolve(read === null ? { note: 'frame not readable' } : { read });
    };
    node.src = src;
    document.getElementById('sink').append(node);
  });

// A form on a page of this site, submitted by script as soon as it loads, into the frame.
const form = (enctype, fields) => (url) =>
  frame('/form?' + new URLSearchParams({ action: url, enctype, fields: JSON.stringify(fields) }), 2);

const iframe = (url) => frame(url, 1);

const json = JSON.stringify({ type: 'COPILOT', name: 'pwned by fetch' });
const mode = params.get('mode');

async function attack() {
  const create = '/conversations/create';
  const remove = '/conversations/' + id + '/delete';
  await attempt('fetch no-cors POST create, JSON as text/plain', 'fetch', 'POST', create, noCors({ method: 'POST', body: json }));
  await attempt('fetch no-cors POST delete, no body', 'fetch', 'POST', remove, noCors({ method: 'POST' }));
  await attempt('fetch no-cors POST rename, no body', 'fetch', 'POST', '/conversation/' + id + '/rename', noCors({ method: 'POST' }));
  await attempt('fetch cors GET list', 'fetch', 'GET', '/conversations', corsFetch({}));
  await attempt('img GET conversation', 'image', 'GET', '/conversation/' + id, element('img'));
  await attempt('script GET list', 'script', 'GET', '/conversations', element('script'));
  await attempt('sendBeacon POST create, JSON as text/plain', 'beacon', 'POST', create, beacon(json));
  // The classic: a text/plain form whose one field's name and value join into a JSON body,
  // {"type":"COPILOT","name":"pwned by form","x":"="}.
  const jsonShaped = [['{"type":"COPILOT","name":"pwned by form","x":"', '"}']];
  await attempt('form POST create, text/plain JSON-shaped', 'form', 'POST', create, form('text/plain', jsonShaped));
  const fields = [['type', 'COPILOT'], ['name', 'pwned by form']];
  await attempt('form POST create, urlencoded', 'form', 'POST', create, form('application/x-www-form-urlencoded', fields));
  await attempt('form POST delete', 'form', 'POST', remove, form('application/x-www-form-urlencoded', []));
  await attempt('iframe GET conversation', 'frame', 'GET', '/conversation/' + id, iframe);
}

// What a web app the service trusts does: a JSON POST (preflighted) and a read of the list.
async function use() {
  const headers = { 'Content-Type': 'application/json' };
  const body = JSON.stringify({ type: 'COPILOT', name: 'created by the page' });
  await attempt('fetch cors POST create, application/json', 'fetch', 'POST', '/conversations/create', corsFetch({ method: 'POST', headers, body }));
  await attempt('fetch cors GET list', 'fetch', 'GET', '/conversations', corsFetch({}));
}

(mode === 'attack' ? attack() : use()).finally(() => {
  window.done = true;
});
`;

/** A page that submits one form to `action` once it has loaded (so its frame sees two loads: this page, then the answer). */
function formPageHtml(query: URLSearchParams): string {
  const fields = JSON.parse(query.get('fields') ?? '[]') as [string, string][];
  const inputs = fields.map(([name, value]) => `<input type="hidden" name="${attribute(name)}" value="${attribute(value)}">`);
  return `<!doctype html><html><body>
<form method="POST" action="${attribute(query.get('action') ?? '')}" enctype="${attribute(query.get('enctype') ?? '')}">${inputs.join('')}</form>
<script>addEventListener('load', () => setTimeout(() => document.forms[0].submit()));</script>
</body></html>`;
}

const attribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The attacker's web server: plain node:http on 127.0.0.1, a port of its own. */
export async function startPageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://page.invalid');
    const html = url.pathname === '/attack' ? attackerPageHtml() : url.pathname === '/form' ? formPageHtml(url.searchParams) : undefined;
    if (html === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Headless Debian Chromium, with REBOUND_HOST resolving to 127.0.0.1 and nothing fetched from the
 * Internet.
 *
 * Its files go in a folder of its own, short, in the run's temp folder (test/helpers/temp-dir.ts,
 * shortTempDir), removed after the test or the file that launched it: Chromium makes its
 * `SingletonSocket` in its `$TMPDIR`, and a unix socket's path holds at most 107 bytes, which a
 * path in the test file's own folder (named after the file) can exceed ("Socket path too long").
 */
export async function launchChromium(): Promise<Browser> {
  const folder = await shortTempDir(BROWSER_PREFIX);
  // Playwright makes the browser's profile and artifacts folders with os.tmpdir() while it
  // launches: $TMPDIR names the browser's folder for that while only (nothing else runs then).
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  try {
    return await chromium.launch({
      executablePath: CHROMIUM_PATH,
      env: { ...process.env, TMPDIR: folder, TMP: folder, TEMP: folder },
      timeout: 30_000,
      args: [
        '--no-sandbox', // runs as root in CI
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-proxy-server', // a proxy from the environment would receive rebind.test
        `--host-resolver-rules=MAP ${REBOUND_HOST} 127.0.0.1`,
      ],
    });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** One request the service answered, as the service saw it. */
export interface ServiceAnswer {
  /** The page's attempt number (the `attempt` query parameter the page adds), or null. */
  readonly attempt: number | null;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The request headers the web-origin checks look at. */
  readonly headers: Readonly<Record<string, string>>;
}

const CHECKED_HEADERS = ['host', 'origin', 'content-type', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest'];

/**
 * Logs every answer the HTTP server on `port` sends, from Node's own `http.server.response.finish`
 * diagnostics channel: the service's real status even where the browser then hides it from the
 * page (CORS, opaque responses, ORB), and proof that a request reached the service at all.
 */
export function recordAnswers(port: number): { answers: ServiceAnswer[]; stop(): void } {
  const answers: ServiceAnswer[] = [];
  const onFinish = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (request.socket.localPort !== port) return;
    const url = new URL(request.url ?? '/', 'http://service.invalid');
    const attempt = url.searchParams.get('attempt');
    const headers: Record<string, string> = {};
    for (const name of CHECKED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    answers.push({
      attempt: attempt === null ? null : Number(attempt),
      method: request.method ?? '',
      path: url.pathname,
      status: response.statusCode,
      headers,
    });
  };
  subscribe('http.server.response.finish', onFinish);
  return { answers, stop: () => unsubscribe('http.server.response.finish', onFinish) };
}
