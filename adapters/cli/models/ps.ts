import type { Command } from '../command.js';
import { formatTable } from '../table.js';
import { formatBytes } from '../units.js';
import type { ApiModel, ApiModels } from './answers.js';
import { sizeOf } from './list.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

/** Where a loaded model runs, as far as the model says. */
const processorOf = (model: ApiModel) => (model.cloud ? 'cloud' : model.cpu ? 'CPU' : '-');

/** The table of `models ps`: the loaded models only, as `ollama ps` shows them (a header alone when none is). */
export function psRows(models: readonly ApiModel[]): string[][] {
  return [
    ['ID', 'NAME', 'SIZE', 'RAM', 'PROCESSOR'],
    ...models
      .filter((m) => m.loaded)
      .map((m) => [m.id, m.name, sizeOf(m), m.ram?.value === undefined ? '-' : formatBytes(m.ram.value), processorOf(m)]),
  ];
}

/** `models ps`: the models held in memory (as `ollama ps`). */
export const modelsPs: Command = {
  path: ['models', 'ps'],
  summary: 'Lists the models a running server holds in memory (models stop <model> frees one).',
  details: SERVER_ENVIRONMENT,
  flags: SERVER_FLAGS,
  async run(input) {
    const { iterable } = await clientFor(input).call<ApiModels>('GET', '/models');
    process.stdout.write(formatTable(psRows(iterable), process.stdout.isTTY === true));
  },
};
