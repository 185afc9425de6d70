import type { ApiClient } from '../api-client.js';
import { CommandFailure } from '../failures.js';
import type { ApiModels } from './answers.js';

/** How the model commands name their argument in usage lines and messages. */
export const MODEL_ARGUMENT = { name: 'model', what: 'a model id or name' } as const;

/**
 * The id of the model `given` names: its id, else the one model whose name is `given` (letter case
 * aside), as people type `ollama show llama3`. Several models of that name are a failure that
 * lists their ids; no match leaves `given` as it is, for the server to say it knows no such model.
 */
export async function modelIdOf(client: ApiClient, given: string): Promise<string> {
  const { iterable } = await client.call<ApiModels>('GET', '/models');
  if (iterable.some((model) => model.id === given)) return given;
  const named = iterable.filter((model) => model.name.toLowerCase() === given.toLowerCase());
  if (named.length > 1) {
    throw new CommandFailure(`${named.length} models are named "${given}": give one of their ids, ${named.map((m) => m.id).join(', ')}.`);
  }
  return named[0]?.id ?? given;
}
