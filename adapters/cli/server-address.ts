import { UsageError } from './failures.js';
import { parsePort } from './port.js';

/** Where `serve` listens unless told otherwise, and so where the model commands look for it. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 39300;

/** The flags that say where the server is, as the model commands take them. */
export interface AddressFlags {
  readonly url?: string;
  readonly host?: string;
  readonly port?: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** A set, non-empty environment variable: `PORT=` counts as unset, as it does for most tools. */
const fromEnvironment = (env: Environment, name: string) => (env[name] === '' ? undefined : env[name]);

/**
 * The address a client connects to for a server listening on `host`: any-address hosts
 * (`0.0.0.0`, `::`) are reached on loopback, and IPv6 literals get the brackets a URL needs.
 */
export function connectableHost(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare === '0.0.0.0' || bare === '') return '127.0.0.1';
  if (bare === '::' || bare === '0:0:0:0:0:0:0:0') return '[::1]';
  return bare.includes(':') ? `[${bare}]` : bare;
}

/**
 * The base URL of the server the model commands talk to: `--url` as given; else `--host` and
 * `--port`, each falling back to `HOST` and `PORT`, the variables `serve` itself reads (so a shell
 * that set them for the server reaches it), then to `serve`'s defaults.
 */
export function serverUrl(flags: AddressFlags, env: Environment): string {
  if (flags.url !== undefined) {
    if (flags.host !== undefined || flags.port !== undefined) throw new UsageError('give --url or --host and --port, not both');
    let url: URL | undefined;
    try {
      url = new URL(flags.url);
    } catch {
      // Said below.
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(`--url must be an http(s) address such as http://${DEFAULT_HOST}:${DEFAULT_PORT}, not "${flags.url}"`);
    }
    return url.href.replace(/\/+$/, '');
  }
  const portText = flags.port ?? fromEnvironment(env, 'PORT');
  const port = portText === undefined ? DEFAULT_PORT : parsePort(portText, flags.port !== undefined ? '--port' : 'PORT', false);
  const hostText = flags.host ?? fromEnvironment(env, 'HOST') ?? DEFAULT_HOST;
  const url = `http://${connectableHost(hostText)}:${port}`;
  // `HOST=localhost:8080` and the like: said here, not as fetch's "Invalid URL" once connecting.
  if (!URL.canParse(url))
    throw new UsageError(`${flags.host !== undefined ? '--host' : 'HOST'} must be a host name or address, not "${hostText}"`);
  return url;
}
