/**
 * The example server (`npm start`): the service on its embedded defaults, a JSON file in a data
 * folder and the embedded summarizer, listening on 127.0.0.1. Environment:
 *   PORT             default 39300 (the port Pieces OS listens on); 0 picks a free one
 *   HOST             default 127.0.0.1; any other address needs API_TOKEN
 *   DATA_DIR         default ./data
 *   API_TOKEN        a token every request must send as `Authorization: Bearer <token>`
 *   ALLOWED_ORIGINS  comma-separated web origins whose pages may call the service
 *   ALLOWED_HOSTS    comma-separated host names accepted besides loopback ones
 *   OPENAI_BASE_URL  an OpenAI-compatible server whose models write titles and summaries,
 *                    e.g. http://127.0.0.1:11434/v1 (Ollama); OPENAI_API_KEY if it needs one
 *   DEFAULT_MODEL    the unique name or id of the model that writes when a conversation names none
 * On SIGINT or SIGTERM it stops accepting, lets requests under way finish, and closes the data.
 */

import path from 'node:path';
import { startHttpServer } from '../adapters/hono/serve.js';
import { createService } from '../src/index.js';
import { createLlamaCppRuntime } from '../src/runtimes/llama-cpp.js';
import { createOpenAiCompatibleRuntime } from '../src/runtimes/openai-compatible.js';

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const dataDir = process.env.DATA_DIR ?? 'data';

const runtimes = [
  // GGUF files in DATA_DIR/models/<model>/ run in-process once node-llama-cpp is installed; nothing loads until used.
  createLlamaCppRuntime({ cacheRoot: path.join(dataDir, 'models') }),
  ...(process.env.OPENAI_BASE_URL
    ? [
        createOpenAiCompatibleRuntime({
          baseUrl: process.env.OPENAI_BASE_URL,
          ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
        }),
      ]
    : []),
];
const service = await createService({
  dataDir,
  runtimes,
  ...(process.env.DEFAULT_MODEL ? { defaultModel: process.env.DEFAULT_MODEL } : {}),
});
let server;
try {
  server = await startHttpServer(service, {
    port: Number(process.env.PORT ?? 39300),
    host: process.env.HOST ?? '127.0.0.1',
    ...(process.env.API_TOKEN ? { token: process.env.API_TOKEN } : {}),
    ...(process.env.ALLOWED_ORIGINS ? { allowedOrigins: list(process.env.ALLOWED_ORIGINS) } : {}),
    ...(process.env.ALLOWED_HOSTS ? { allowedHosts: list(process.env.ALLOWED_HOSTS) } : {}),
  });
} catch (error) {
  await service.close();
  console.error((error as Error).message);
  process.exit(1);
}
// Tests read this line to find the port.
console.log(`Listening on ${server.url} (data in ${dataDir})`);

const running = server;
const shutdown = async () => {
  await running.close();
  await service.close();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
