import { SERVICE_VERSION } from '../../src/version.js';
import { backup } from './backup.js';
import { type Command, fullName, PROGRAM } from './command.js';
import { UsageError } from './failures.js';
import { helpText } from './help.js';
import { modelsList } from './models/list.js';
import { modelsPs } from './models/ps.js';
import { modelsPull } from './models/pull.js';
import { modelsRm } from './models/rm.js';
import { modelsShow } from './models/show.js';
import { modelsStop } from './models/stop.js';
import { search } from './search.js';
import { serve } from './serve.js';
import { store } from './store-copy.js';
import { exportCommand } from './transfer/export.js';
import { importCommand } from './transfer/import.js';
import { trash, trashRestore } from './trash.js';

/** `models`: the commands that talk to a running server, as Ollama's do. */
export const models: Command = {
  path: ['models'],
  summary: 'Lists, shows, downloads, unloads and deletes the models of a running server.',
  commands: [modelsList, modelsPs, modelsShow, modelsPull, modelsStop, modelsRm],
  async run() {
    const names = this.commands!.map((command) => command.path.at(-1));
    throw new UsageError(`models needs a command: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  },
};

/** `version`: the same as `--version`, for those who type it as a command. */
export const version: Command = {
  path: ['version'],
  summary: 'Prints the version.',
  async run() {
    process.stdout.write(`${SERVICE_VERSION}\n`);
  },
};

/** The program itself: its commands, and `--version`; alone, it prints its help. */
export const program: Command = {
  path: [],
  summary: `${PROGRAM} ${SERVICE_VERSION}: keeps AI-assistant conversations and the models that serve them.`,
  flags: { version: { type: 'boolean', short: 'v', description: 'prints the version' } },
  commands: [serve, models, search, trash, exportCommand, importCommand, backup, store, version],
  details: `Examples:
  ${fullName(serve)} --port 39300 --host 127.0.0.1 --data-dir ./data
  ${fullName(modelsList)}
  ${fullName(modelsPull)} <model>
  ${fullName(search)} "garden plans" --limit 5
  ${fullName(trashRestore)} <conversation>
  ${fullName(exportCommand)} --format json --out conversations.json
  ${fullName(importCommand)} conversations.json
  ${fullName(backup)} --out ~/backups/conversations
  ${fullName(store)} copy --from ./data --to postgres://me@127.0.0.1:5432/app
  PORT=8080 ${fullName(modelsPs)}`,
  async run({ flags }) {
    process.stdout.write(flags.has('version') ? `${SERVICE_VERSION}\n` : helpText(this));
  },
};
