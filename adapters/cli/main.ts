#!/usr/bin/env node
/**
 * `conversation-model-service`: the service from the command line.
 *
 *   conversation-model-service serve [--port N] [--host H] [--data-dir DIR]
 *   conversation-model-service models list | pull <model> | rm <model>   [--url URL]
 *   conversation-model-service --help | --version
 *
 * `serve` reads the same environment as the example server (PORT, HOST, DATA_DIR, API_TOKEN,
 * ALLOWED_ORIGINS, ALLOWED_HOSTS, DOWNLOAD_ALLOWED_HOSTS, OPENAI_BASE_URL, OPENAI_API_KEY,
 * DEFAULT_MODEL); flags win.
 * The model commands talk to a running server, as Ollama's do.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createService, SERVICE_VERSION } from '../../src/index.js';

const HELP = `conversation-model-service ${SERVICE_VERSION}: keeps AI-assistant conversations and the models that serve them.

Usage:
  conversation-model-service serve [--port N] [--host H] [--data-dir DIR] [--log-requests]
      Serves the API (default http://127.0.0.1:39300, data in ./data). Environment: PORT, HOST,
      DATA_DIR, API_TOKEN (required off loopback), ALLOWED_ORIGINS, ALLOWED_HOSTS,
      DOWNLOAD_ALLOWED_HOSTS, OPENAI_BASE_URL, OPENAI_API_KEY, DEFAULT_MODEL. Ctrl-C (SIGINT) or
      SIGTERM stops it gracefully; another, a second or more later, stops at once.
  conversation-model-service models list           the models of a running server
  conversation-model-service models pull <model>   downloads a model's file, showing progress
  conversation-model-service models rm <model>     deletes a custom model
      --url URL   the server (default http://127.0.0.1:39300); API_TOKEN is sent if set
  conversation-model-service --help | --version
`;

/** What `serve` needs beside the package: optional peer dependencies, which only it loads. */
const HTTP_PACKAGES = ['hono', '@hono/node-server'] as const;

/**
 * The HTTP server and the options read from the environment, loaded when `serve` runs: the other
 * commands (`--version`, `--help`, `models`) work without hono and @hono/node-server installed.
 * Without them `serve` says, in one line, what to install, and exits 1.
 */
async function loadServer() {
  try {
    const [server, environment] = await Promise.all([import('../hono/serve.js'), import('./environment.js')]);
    return { ...server, ...environment };
  } catch (error) {
    const missingOne =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      HTTP_PACKAGES.some((name) => (error as Error).message.includes(`Cannot find package '${name}'`));
    if (!missingOne) throw error;
    const missing = HTTP_PACKAGES.filter((name) => !installed(name));
    const names = missing.length > 0 ? missing : HTTP_PACKAGES;
    fail(`conversation-model-service serve needs ${HTTP_PACKAGES.join(' and ')} installed beside it: npm install ${names.join(' ')}`);
  }
}

/** Whether `name` resolves from here, as the HTTP adapter's own imports resolve it. */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

async function serve(flags: { port?: string; host?: string; 'data-dir'?: string; 'log-requests'?: boolean }): Promise<void> {
  // Before the data folder is opened (and made): without the HTTP packages there is nothing to serve.
  const { startHttpServer, serverOptionsFrom, serviceOptionsFrom } = await loadServer();
  const dataDir = flags['data-dir'] ?? process.env.DATA_DIR ?? 'data';
  let service;
  try {
    // --host counts as HOST: off loopback, downloads may not reach this machine's network.
    service = await createService(serviceOptionsFrom(flags.host ? { ...process.env, HOST: flags.host } : process.env, dataDir));
  } catch (error) {
    fail(`Cannot open the data folder ${path.resolve(dataDir)}: ${(error as Error).message}`);
  }
  const options = serverOptionsFrom(process.env);
  const port = flags.port === undefined ? options.port : Number(flags.port);
  const host = flags.host ?? options.host;
  let server;
  try {
    server = await startHttpServer(service, {
      ...options,
      port,
      host,
      ...(flags['log-requests'] ? { requestLog: (line: string) => console.log(line) } : {}),
    });
  } catch (error) {
    await service.close();
    const code = (error as NodeJS.ErrnoException).code;
    fail(
      code === 'EADDRINUSE'
        ? `Port ${port} on ${host} is in use: stop what listens there, or choose another with --port.`
        : (error as Error).message,
    );
  }
  console.log(`Listening on ${server.url} (data in ${dataDir})`);
  const running = { server, service };
  // When this process runs under a wrapper (`npm start`, a process manager), a stop can reach it
  // twice: a terminal's Ctrl-C signals the whole process group (systemd's stop, every process of
  // the service), and npm passes on to its script the signal it got itself. A repeat within ECHO_MS is that echo, not a second
  // request; a later one stops at once.
  const ECHO_MS = 1_000;
  let stoppingSince: number | undefined;
  const stop = async (signal: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < ECHO_MS) return;
      // A second signal: no more waiting for requests; the data is flushed by close() on its way out.
      console.log(`${signal} again: stopping now.`);
      await running.service.close().catch(() => undefined);
      process.exit(1);
    }
    stoppingSince = performance.now();
    console.log(`${signal}: finishing the requests under way, then stopping (again to stop at once).`);
    try {
      await running.server.close();
      await running.service.close();
    } catch (error) {
      console.error(`Stopping failed: ${(error as Error).message}`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** A model as `GET /models` lists it: the fields the table shows. */
interface ListedModel {
  id: string;
  name: string;
  loaded?: boolean;
  downloaded?: boolean;
  custom?: boolean;
  loadFailure?: { reason: string; at: string };
  downloadFailure?: { reason: string; at: string };
}

async function models(args: string[], url: string): Promise<void> {
  const [command, model] = args;
  const headers: Record<string, string> = process.env.API_TOKEN ? { Authorization: `Bearer ${process.env.API_TOKEN}` } : {};
  const call = async (method: string, route: string) => {
    const response = await fetch(`${url}${route}`, { method, headers }).catch((error: Error) =>
      fail(`Cannot reach ${url}: ${error.message}. Is the server running (conversation-model-service serve)?`),
    );
    const text = await response.text();
    if (!response.ok) fail(`${method} ${route} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  if (command === 'list') {
    const { iterable } = (await call('GET', '/models')) as { iterable: ListedModel[] };
    console.log(['ID', 'NAME', 'CUSTOM', 'DOWNLOADED', 'LOADED'].join('\t'));
    for (const m of iterable) {
      const loaded = m.loadFailure ? 'failed' : m.loaded ? 'yes' : 'no';
      console.log([m.id, m.name, m.custom ? 'yes' : 'no', m.downloaded ? 'yes' : 'no', loaded].join('\t'));
    }
    // Why a model failed, under the table: reasons are sentences, too long for a column.
    for (const m of iterable) {
      if (m.loadFailure) console.log(`${m.id} failed to load (${m.loadFailure.at}): ${m.loadFailure.reason}`);
      if (m.downloadFailure) console.log(`${m.id} failed to download (${m.downloadFailure.at}): ${m.downloadFailure.reason}`);
    }
    return;
  }
  if (!model) fail(`models ${command ?? ''} needs a model id.\n\n${HELP}`);
  const id = encodeURIComponent(model);
  if (command === 'rm') {
    await call('POST', `/models/${id}/delete`);
    console.log(`deleted ${model}`);
    return;
  }
  if (command === 'pull') {
    await call('POST', `/model/${id}/download`);
    // On a terminal, one line redrawn; into a file or a pipe, a line per change of status or whole percent.
    const terminal = process.stdout.isTTY === true;
    let shown = '';
    for (;;) {
      const { status, percentage, reason } = (await call('GET', `/model/${id}/download/progress`)) as {
        status: string;
        percentage?: number | null;
        reason?: string;
      };
      const done = status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELED';
      if (status !== 'FAILED') {
        const line = percentage == null ? status : `${status} ${terminal ? percentage.toFixed(1) : Math.floor(percentage)}%`;
        if (terminal) process.stdout.write(`\r${line}   `);
        else if (line !== shown) process.stdout.write(`${line}\n`);
        shown = line;
      }
      if (done) {
        if (terminal) process.stdout.write('\n');
        if (status === 'FAILED') fail(`FAILED: ${reason ?? 'the server gave no reason'}`);
        if (status === 'CANCELED') process.exit(1);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  fail(`Unknown command: models ${command ?? ''}\n\n${HELP}`);
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'log-requests': { type: 'boolean' },
    url: { type: 'string', default: 'http://127.0.0.1:39300' },
  },
});

if (values.version) console.log(SERVICE_VERSION);
else if (values.help || positionals.length === 0) console.log(HELP);
else if (positionals[0] === 'serve') await serve(values);
else if (positionals[0] === 'models') await models(positionals.slice(1), values.url.replace(/\/+$/, ''));
else fail(`Unknown command: ${positionals.join(' ')}\n\n${HELP}`);
