/**
 * The example server (`npm start`): the service on its embedded defaults, a JSON file in a data
 * folder and the embedded summarizer, listening on 127.0.0.1. Environment:
 *   PORT             default 39300 (the port Pieces OS listens on); 0 picks a free one
 *   HOST             default 127.0.0.1; any other address needs API_TOKEN
 *   DATA_DIR         default ./data (with DATABASE_URL, only the models' cache, in DATA_DIR/models)
 *   DATABASE_URL     postgres://user:password@host:5432/db keeps the data in PostgreSQL (needs the pg
 *                    package); any number of servers may share it. Unreachable: exit 1, no fallback
 *   DATABASE_SCHEMA  the schema of its tables, default conversation_model_service
 *   API_TOKEN        a token every request must send as `Authorization: Bearer <token>`
 *   ALLOWED_ORIGINS  comma-separated web origins whose pages may call the service
 *   ALLOWED_HOSTS    comma-separated host names accepted besides loopback ones
 *   DOWNLOAD_ALLOWED_HOSTS  comma-separated hosts model downloads may reach even when private
 *                    (off loopback, downloads refuse loopback and private addresses otherwise)
 *   OPENAI_BASE_URL  an OpenAI-compatible server whose models write titles and summaries,
 *                    e.g. http://127.0.0.1:11434/v1 (Ollama); OPENAI_API_KEY if it needs one
 *   DEFAULT_MODEL    the unique name or id of the model that writes when a conversation names none
 * On SIGINT or SIGTERM it stops accepting, lets requests under way finish, and closes the data.
 */

import path from 'node:path';
import { serverOptionsFrom, serviceOptionsFrom } from '../adapters/cli/environment.js';
import { databaseLocation, describeStore, openStore } from '../adapters/cli/store-location.js';
import { startHttpServer } from '../adapters/hono/serve.js';
import { createService } from '../src/index.js';

const dataDir = process.env.DATA_DIR ?? 'data';
let database: ReturnType<typeof databaseLocation> | undefined;
let repository: Awaited<ReturnType<typeof openStore>> | undefined;
try {
  database = process.env.DATABASE_URL
    ? databaseLocation(process.env.DATABASE_URL, process.env.DATABASE_SCHEMA || undefined, 'DATABASE_URL')
    : undefined;
  // An unreachable database is one line and exit 1: never a quiet fallback to the folder.
  repository = database ? await openStore(database) : undefined;
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const service = await createService({ ...serviceOptionsFrom(process.env, dataDir), ...(repository ? { repository } : {}) });
let server;
try {
  server = await startHttpServer(service, serverOptionsFrom(process.env));
} catch (error) {
  await service.close();
  console.error((error as Error).message);
  process.exit(1);
}
// Tests read this line to find the port.
const where = database ? `${describeStore(database)}; models in ${path.resolve(dataDir, 'models')}` : path.resolve(dataDir);
console.log(`Listening on ${server.url} (data in ${where})`);

const running = server;
const shutdown = async () => {
  await running.close();
  await service.close();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
