import type { Command } from '../command.js';
import { segment } from './answers.js';
import { MODEL_ARGUMENT, modelIdOf } from './model-id.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

/** `models rm <model>`: deletes a custom model (as `ollama rm`). */
export const modelsRm: Command = {
  path: ['models', 'rm'],
  summary: 'Deletes a custom model and its downloaded files.',
  details: `${SERVER_ENVIRONMENT}
Only custom models can be deleted: the built-in ones and those a runtime offers cannot.`,
  positionals: [MODEL_ARGUMENT],
  flags: SERVER_FLAGS,
  async run(input) {
    const client = clientFor(input);
    const id = await modelIdOf(client, input.positionals[0]!);
    await client.call<undefined>('POST', `/models/${segment(id)}/delete`);
    process.stdout.write(`deleted ${id}\n`);
  },
};
