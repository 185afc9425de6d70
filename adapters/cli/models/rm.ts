import type { Command } from '../command.js';
import { segment } from './answers.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

/** `models rm <model>`: deletes a custom model (as `ollama rm`). */
export const modelsRm: Command = {
  path: ['models', 'rm'],
  summary: 'Deletes a custom model and its downloaded files.',
  details: `${SERVER_ENVIRONMENT}
Only custom models can be deleted: the built-in ones and those a runtime offers cannot.`,
  positionals: [{ name: 'model', what: 'a model id' }],
  flags: SERVER_FLAGS,
  async run(input) {
    const id = input.positionals[0]!;
    await clientFor(input).call<undefined>('POST', `/models/${segment(id)}/delete`);
    process.stdout.write(`deleted ${id}\n`);
  },
};
