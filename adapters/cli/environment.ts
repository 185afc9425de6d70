import path from 'node:path';
import type { ServiceOptions } from '../../src/index.js';
import { createLlamaCppRuntime } from '../../src/runtimes/llama-cpp.js';
import { createOpenAiCompatibleRuntime } from '../../src/runtimes/openai-compatible.js';
import type { HttpServerOptions } from '../hono/serve.js';
import { isLoopbackHost } from '../hono/web-origin.js';
import { parsePort } from './port.js';

type Environment = Readonly<Record<string, string | undefined>>;

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * The service's options from the environment, as the command and the example server read it:
 * GGUF files in `DATA_DIR/models/<model>/` run in-process (nothing loads until used), and
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `DEFAULT_MODEL` name a server whose models write. When
 * `HOST` is not a loopback address, model downloads may not reach this machine or its private
 * network (other machines hold the token, and must not use the service to probe them), except
 * the hosts of `DOWNLOAD_ALLOWED_HOSTS` (comma-separated names or addresses).
 */
export function serviceOptionsFrom(env: Environment, dataDir: string): ServiceOptions {
  return {
    dataDir,
    runtimes: [
      createLlamaCppRuntime({ cacheRoot: path.join(dataDir, 'models') }),
      ...(env.OPENAI_BASE_URL
        ? [createOpenAiCompatibleRuntime({ baseUrl: env.OPENAI_BASE_URL, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) })]
        : []),
    ],
    ...(env.DEFAULT_MODEL ? { defaultModel: env.DEFAULT_MODEL } : {}),
    downloads: {
      privateAddresses: isLoopbackHost(env.HOST ?? '127.0.0.1') ? 'allow' : 'refuse',
      ...(env.DOWNLOAD_ALLOWED_HOSTS ? { allowedHosts: list(env.DOWNLOAD_ALLOWED_HOSTS) } : {}),
    },
  };
}

/** The server's options from the environment: `PORT`, `HOST`, `API_TOKEN`, `ALLOWED_ORIGINS`, `ALLOWED_HOSTS`. */
export function serverOptionsFrom(env: Environment): HttpServerOptions {
  return {
    // Checked as `serve` checks it: `PORT=abc` is said as such, not as Node's RangeError from listen.
    port: env.PORT ? parsePort(env.PORT, 'PORT', true) : 39300,
    host: env.HOST ?? '127.0.0.1',
    ...(env.API_TOKEN ? { token: env.API_TOKEN } : {}),
    ...(env.ALLOWED_ORIGINS ? { allowedOrigins: list(env.ALLOWED_ORIGINS) } : {}),
    ...(env.ALLOWED_HOSTS ? { allowedHosts: list(env.ALLOWED_HOSTS) } : {}),
  };
}
