import type { Command } from '../command.js';
import { formatTable } from '../table.js';
import { formatBytes } from '../units.js';
import { type ApiModel, segment } from './answers.js';
import { MODEL_ARGUMENT, modelIdOf } from './model-id.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

const yesNo = (value: boolean | undefined) => (value === undefined ? undefined : value ? 'yes' : 'no');

/** `input 4096, output 1024`: a small object on one line. */
const inline = (value: Readonly<Record<string, unknown>> | undefined) =>
  value && Object.keys(value).length > 0
    ? Object.entries(value)
        .map(([key, inner]) => `${key} ${typeof inner === 'object' ? JSON.stringify(inner) : String(inner)}`)
        .join(', ')
    : undefined;

/** One model's details as label and value, in the order a person asks: what it is, where it is, its state; unset fields left out. */
export function showRows(model: ApiModel): string[][] {
  const rows: [string, string | undefined][] = [
    ['id', model.id],
    ['name', model.name],
    ['description', model.description],
    ['usage', model.usage],
    ['type', model.type],
    ['foundation', model.foundation],
    ['provider', model.provider],
    ['parameters', model.parameters === undefined ? undefined : String(model.parameters)],
    ['quantization', model.quantization],
    ['max tokens', inline(model.maxTokens)],
    ['size', model.bytes?.value === undefined ? undefined : formatBytes(model.bytes.value)],
    ['ram', model.ram?.value === undefined ? undefined : formatBytes(model.ram.value)],
    ['source', model.unique],
    ['custom', yesNo(model.custom)],
    ['cloud', yesNo(model.cloud)],
    ['cpu', yesNo(model.cpu)],
    ['downloaded', model.downloading ? 'downloading' : yesNo(model.downloaded)],
    ['loaded', yesNo(model.loaded)],
    ['load failure', model.loadFailure && `${model.loadFailure.reason} (${model.loadFailure.at})`],
    ['download failure', model.downloadFailure && `${model.downloadFailure.reason} (${model.downloadFailure.at})`],
    ['created', model.created?.value],
    ['version', model.version],
  ];
  // A value on one line whatever it holds: a description may have several.
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
    .map(([label, value]) => [label, value.replace(/\s+/g, ' ')]);
}

/** `models show <model>`: one model, a field a line (as `ollama show`). */
export const modelsShow: Command = {
  path: ['models', 'show'],
  summary: "Shows one model's details: what it is, its size and source, whether it is downloaded and loaded.",
  details: SERVER_ENVIRONMENT,
  positionals: [MODEL_ARGUMENT],
  flags: SERVER_FLAGS,
  async run(input) {
    const client = clientFor(input);
    const model = await client.call<ApiModel>('GET', `/model/${segment(await modelIdOf(client, input.positionals[0]!))}`);
    // Aligned even into a pipe: label and value pairs are for reading (and grep), not for cutting columns.
    process.stdout.write(formatTable(showRows(model), true));
  },
};
