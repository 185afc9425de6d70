import { invalidInput, notFound, ServiceError } from '../errors.js';
import type { ModelRecord } from '../records.js';
import { modelDeleteCacheInputSchema, type SeededModel, seededModelSchema } from '../schemas/models.js';
import { parseInput } from '../validate.js';
import type { ListOf, Model, ModelDeleteCacheOutput } from '../wire.js';
import { type OperationContext, parseId } from './context.js';
import { runtimeFor, withLiveState } from './model-lifecycle.js';

/**
 * Models whose cache can be deleted: the generative ones, that is models used for conversation or
 * code generation (usage CODE_CONVERSATION or CODE_GENERATION). Every other usage (titles,
 * descriptions, embeddings, OCR, …) is a task model with nothing an LLM runtime downloaded.
 */
export const LLM_USAGES: ReadonlySet<string> = new Set(['CODE_CONVERSATION', 'CODE_GENERATION']);
export const isLlm = (model: Pick<ModelRecord, 'usage'>): boolean => LLM_USAGES.has(model.usage);

/**
 * Every model: the built-in ones, then those the runtimes offer (a runtime that is down lists what
 * it last saw, not loaded), then the custom ones in creation order.
 */
export async function listModels(ctx: OperationContext): Promise<ListOf<Model>> {
  const { records: custom } = await ctx.repository.read((view) => view.list('models'));
  const offered = (await Promise.all(ctx.runtimes.map((runtime) => runtime.models()))).flat();
  const live = await Promise.all(custom.map((model) => withLiveState(ctx, model)));
  return { iterable: [...ctx.models.builtins(), ...offered, ...live].map((model) => ({ ...model })) };
}

/**
 * Creates a custom model (`custom: true`, not loaded). Refuses with CONFLICT, naming the existing
 * model, when it would duplicate one: same `unique` (the name a runtime loads it by), or, when
 * either has no `unique`, the same name (ignoring case and surrounding spaces) and version.
 */
export async function createModel(ctx: OperationContext, seed?: unknown): Promise<Model> {
  if (seed === undefined) throw invalidInput('A SeededModel body is required to create a model.');
  const input = parseInput(seededModelSchema, seed, 'SeededModel');
  const model: ModelRecord = {
    ...input,
    id: ctx.newId(),
    custom: true,
    loaded: false,
    downloading: false,
    downloaded: input.downloaded ?? false,
  };
  return ctx.repository.transact(async (tx) => {
    const existing = [...ctx.models.builtins(), ...(await tx.list('models')).records].find((other) => isDuplicate(other, input));
    if (existing) {
      throw new ServiceError('CONFLICT', `A model like this already exists: "${existing.name}" (${existing.id}).`, {
        resource: 'model',
        existingId: existing.id,
      });
    }
    tx.put('models', model);
    return { ...model };
  });
}

function isDuplicate(model: ModelRecord, seed: SeededModel): boolean {
  if (model.unique && seed.unique) return model.unique === seed.unique;
  return normalize(model.name) === normalize(seed.name) && model.version === seed.version;
}
const normalize = (name: string) => name.trim().toLowerCase();

/** Deletes a custom model and its cache folder. Built-in models are refused with FORBIDDEN. */
export async function deleteModel(ctx: OperationContext, modelId: string): Promise<void> {
  const id = parseId(modelId, 'model id');
  refuseBuiltin(ctx, id, 'deleted');
  const model = await ctx.repository.read((view) => view.get('models', id));
  if (!model) throw notFound('model', id);
  if (model.custom !== true) throw forbidden(id, `Model "${id}" is not a custom model and cannot be deleted.`);
  // Its download stopped and its memory freed, then the files: if removing them fails, the model
  // is still there to try again.
  await ctx.downloads?.cancel(id);
  await (await runtimeFor(ctx, model))?.unload?.(model);
  await ctx.models.deleteCache(id);
  await ctx.repository.transact((tx) => tx.delete('models', id));
}

/**
 * Deletes what was downloaded for an LLM model (its folder in the cache root), keeps the model, and
 * marks it not downloaded. Other models are refused with FORBIDDEN.
 */
export async function deleteModelCache(ctx: OperationContext, modelId: string, input?: unknown): Promise<ModelDeleteCacheOutput> {
  const id = parseId(modelId, 'model id');
  parseInput(modelDeleteCacheInputSchema.optional(), input, 'ModelDeleteCacheInput');
  const builtin = ctx.models.builtins().find((model) => model.id === id);
  const model = builtin ?? (await ctx.repository.read((view) => view.get('models', id)));
  if (!model) throw notFound('model', id);
  if (!isLlm(model)) {
    throw forbidden(id, `Model "${id}" (usage ${model.usage}) is not an LLM; only LLM models have a cache to delete.`);
  }
  // A model is never used while its files go: its download stops, its memory is freed first.
  await ctx.downloads?.cancel(id);
  await (await runtimeFor(ctx, model))?.unload?.(model);
  await ctx.models.deleteCache(id);
  if (!builtin) {
    await ctx.repository.transact(async (tx) => {
      const current = await tx.get('models', id);
      if (current) tx.put('models', { ...current, downloaded: false });
    });
  }
  return { model: { id } };
}

/** Unloads every loaded model: the built-in ones release their memory; custom ones are marked unloaded. */
export async function unloadModels(ctx: OperationContext): Promise<void> {
  await ctx.models.unloadAll();
  await Promise.all(ctx.runtimes.map((runtime) => runtime.unloadAll?.()));
  await ctx.repository.transact(async (tx) => {
    for (const model of (await tx.list('models')).records) if (model.loaded) tx.put('models', { ...model, loaded: false });
  });
}

function refuseBuiltin(ctx: OperationContext, id: string, verb: string): void {
  if (ctx.models.builtins().some((model) => model.id === id)) {
    throw forbidden(id, `Model "${id}" is built in and cannot be ${verb}.`);
  }
}

const forbidden = (id: string, message: string) => new ServiceError('FORBIDDEN', message, { resource: 'model', id });
