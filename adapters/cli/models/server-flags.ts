import { type ApiClient, createApiClient } from '../api-client.js';
import type { CommandInput, FlagSpec } from '../command.js';
import { DEFAULT_HOST, DEFAULT_PORT, serverUrl } from '../server-address.js';

/** The flags of every model command: where the server is. */
export const SERVER_FLAGS: Readonly<Record<string, FlagSpec>> = {
  host: { type: 'string', value: 'H', description: `the server's host (default: HOST, else ${DEFAULT_HOST})` },
  port: { type: 'string', short: 'p', value: 'N', description: `the server's port (default: PORT, else ${DEFAULT_PORT})` },
  url: { type: 'string', value: 'URL', description: "the server's whole address instead, e.g. https://models.example:8443" },
};

/** The help's note on the environment of every model command. */
export const SERVER_ENVIRONMENT = `Environment: HOST and PORT, as serve reads them, say where the server is unless a flag does (a
HOST of 0.0.0.0 or :: is reached on loopback); API_TOKEN, when set, is sent as a Bearer token.`;

/** A client of the server the command line and the environment name. */
export const clientFor = (input: CommandInput, env: NodeJS.ProcessEnv = process.env): ApiClient =>
  createApiClient(serverUrl(input.strings, env), env.API_TOKEN || undefined);
