import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ImportReport, isServiceError } from '../../../src/index.js';
import { importConversations } from '../../../src/transfer/index.js';
import type { Command } from '../command.js';
import { CommandFailure, UsageError } from '../failures.js';
import { clientFor, SERVER_ENVIRONMENT } from '../models/server-flags.js';
import { directStore, TRANSFER_FLAGS, withStore } from './store-flags.js';

const FORMATS = ['auto', 'json', 'chatgpt', 'openwebui'] as const;

/** `import PATH`: this service's JSON export, ChatGPT's conversations.json or Open WebUI's export. */
export const importCommand: Command = {
  path: ['import'],
  summary: "Imports a file: this service's JSON export, ChatGPT's conversations.json or Open WebUI's chat export.",
  positionals: [{ name: 'file', what: 'the file to import' }],
  flags: {
    format: { type: 'string', value: 'F', description: 'auto (default: told from the file), json, chatgpt or openwebui' },
    ...TRANSFER_FLAGS,
  },
  details: `${SERVER_ENVIRONMENT}
The file is sent to the server (or read here, with --data-dir or --database-url) and checked whole
before anything is written: a bad file, or a record stored differently, changes nothing. Importing a
file again writes nothing; if an import stopped half-way (a crash), importing it again finishes it.
See docs/export-import.md.
Examples:
  conversation-model-service import conversations.json
  conversation-model-service import ~/Downloads/chatgpt/conversations.json --format chatgpt
  conversation-model-service import backup.json --data-dir ./data`,
  async run(input) {
    const format = (input.strings.format ?? 'auto') as (typeof FORMATS)[number];
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${format}"`);
    const file = path.resolve(input.positionals[0]!);
    if (!existsSync(file) || !statSync(file).isFile()) throw new CommandFailure(`There is no file ${file}.`);
    const location = directStore(input);
    let report: ImportReport;
    if (location) {
      report = await withStore(location, false, async (repository) => {
        try {
          return await importConversations({ repository, now: () => ({ value: new Date().toISOString() }) }, file, { format });
        } catch (error) {
          if (isServiceError(error)) throw new CommandFailure(error.message);
          throw error;
        }
      });
    } else {
      report = await clientFor(input).upload<ImportReport>(`/conversations/import?format=${format}`, file);
    }
    for (const [collection, counts] of Object.entries(report.collections)) {
      console.log(`${collection}: ${counts!.written} written, ${counts!.unchanged} unchanged`);
    }
    console.log(
      `Imported ${file} (${report.format}): ${report.conversations.written} conversations and ${report.messages.written} messages written, ` +
        `${report.conversations.unchanged} conversations unchanged.`,
    );
  },
};
