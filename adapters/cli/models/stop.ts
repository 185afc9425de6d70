import type { Command } from '../command.js';
import { type ApiModel, segment } from './answers.js';
import { MODEL_ARGUMENT, modelIdOf } from './model-id.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

/** `models stop <model>`: frees a model's memory (as `ollama stop`). */
export const modelsStop: Command = {
  path: ['models', 'stop'],
  summary: 'Unloads a model, freeing its memory (it loads again when next used).',
  details: `${SERVER_ENVIRONMENT}
Stopping a model that is not loaded changes nothing; models ps lists the loaded ones.`,
  positionals: [MODEL_ARGUMENT],
  flags: SERVER_FLAGS,
  async run(input) {
    const client = clientFor(input);
    const id = await modelIdOf(client, input.positionals[0]!);
    const model = await client.call<ApiModel | undefined>('POST', `/model/${segment(id)}/unload`);
    process.stdout.write(`unloaded ${model?.name ? `${model.name} (${id})` : id}\n`);
  },
};
