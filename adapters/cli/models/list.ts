import type { Command } from '../command.js';
import { formatTable } from '../table.js';
import { formatBytes } from '../units.js';
import type { ApiModel, ApiModels } from './answers.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './server-flags.js';

const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');

/** A model's size on disk, or `-` when the model does not say. */
export const sizeOf = (model: ApiModel): string => (model.bytes?.value === undefined ? '-' : formatBytes(model.bytes.value));

/** Whether the model's file is here, or on its way, or failed to come. */
const downloadState = (model: ApiModel) =>
  model.downloaded ? 'yes' : model.downloading ? 'downloading' : model.downloadFailure ? 'failed' : 'no';

/** The table of `models list`: the columns of old first (scripts read them by position), then the size. */
export function listRows(models: readonly ApiModel[]): string[][] {
  return [
    ['ID', 'NAME', 'CUSTOM', 'DOWNLOADED', 'LOADED', 'SIZE'],
    ...models.map((m) => [m.id, m.name, yesNo(m.custom), downloadState(m), m.loadFailure ? 'failed' : yesNo(m.loaded), sizeOf(m)]),
  ];
}

/** Why models failed, one line each: reasons are sentences, too long for a column. */
export function failureLines(models: readonly ApiModel[]): string[] {
  return models.flatMap((m) => [
    ...(m.loadFailure ? [`${m.id} failed to load (${m.loadFailure.at}): ${m.loadFailure.reason}`] : []),
    ...(m.downloadFailure ? [`${m.id} failed to download (${m.downloadFailure.at}): ${m.downloadFailure.reason}`] : []),
  ]);
}

/** `models list`: every model of the server, a row each (as `ollama list`). */
export const modelsList: Command = {
  path: ['models', 'list'],
  summary: 'Lists the models of a running server: built in, offered by its runtimes, custom.',
  details: `${SERVER_ENVIRONMENT}
On a terminal the columns are aligned; into a pipe or a file they are separated by tabs.`,
  flags: SERVER_FLAGS,
  async run(input) {
    const { iterable } = await clientFor(input).call<ApiModels>('GET', '/models');
    process.stdout.write(formatTable(listRows(iterable), process.stdout.isTTY === true));
    for (const line of failureLines(iterable)) process.stdout.write(`${line}\n`);
  },
};
