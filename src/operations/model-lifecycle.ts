import { notFound, ServiceError } from '../errors.js';
import { downloadedBytes, downloadSourceOf, hasDownloadedFile } from '../models/downloads.js';
import type { ModelRuntime } from '../ports.js';
import type { ModelRecord } from '../records.js';
import { modelUpdateSchema } from '../schemas/models.js';
import { parseInput } from '../validate.js';
import type { Model, ModelDownloadProgress } from '../wire.js';
import { type OperationContext, parseId } from './context.js';

/** Where a model comes from: shipped with the service, offered by a runtime, or created. */
type Found = { model: ModelRecord; origin: 'builtin' | 'runtime' | 'custom' };

/** The model with this id, wherever it comes from, or NOT_FOUND. */
export async function findModel(ctx: OperationContext, id: string): Promise<Found> {
  const found = await lookUpModel(ctx, id, false);
  if (!found) throw notFound('model', id);
  return found;
}

/**
 * The model with this id (built in, custom, or offered by a runtime), or else, when `byName`, the
 * one whose `unique` is this name.
 */
export async function lookUpModel(ctx: OperationContext, wanted: string, byName: boolean): Promise<Found | undefined> {
  const all: Found[] = [
    ...ctx.models.builtins().map((model) => ({ model, origin: 'builtin' as const })),
    ...(await ctx.repository.read((view) => view.list('models'))).records.map((model) => ({ model, origin: 'custom' as const })),
    ...(await Promise.all(ctx.runtimes.map((runtime) => runtime.models()))).flat().map((model) => ({ model, origin: 'runtime' as const })),
  ];
  return all.find(({ model }) => model.id === wanted) ?? (byName ? all.find(({ model }) => model.unique === wanted) : undefined);
}

/** The first runtime that runs `model`, if any. */
export async function runtimeFor(ctx: OperationContext, model: ModelRecord): Promise<ModelRuntime | undefined> {
  for (const runtime of ctx.runtimes) if (await runtime.accepts(model)) return runtime;
  return undefined;
}

/**
 * A custom model with its real state: `downloaded` when its cache folder holds its file or a
 * runtime offers it, `downloading` while a download runs, `loaded` when a runtime holds it.
 */
export async function withLiveState(ctx: OperationContext, model: ModelRecord): Promise<Model> {
  const runtime = await runtimeFor(ctx, model);
  const hasFile = ctx.cacheRoot ? await hasDownloadedFile(ctx.cacheRoot, model.id) : false;
  const loadFailure = await runtime?.loadFailure?.(model);
  const downloadFailure = ctx.downloads?.failure(model.id);
  return {
    ...model,
    downloaded: hasFile || (runtime !== undefined && downloadSourceOrNone(model) === undefined),
    downloading: ctx.downloads?.isRunning(model.id) ?? false,
    loaded: runtime?.isLoaded?.(model) ?? false,
    ...(loadFailure ? { loadFailure: { ...loadFailure } } : {}),
    ...(downloadFailure ? { downloadFailure: { ...downloadFailure } } : {}),
  };
}

const downloadSourceOrNone = (model: ModelRecord) => {
  try {
    return downloadSourceOf(model.unique, model.bytes?.value);
  } catch {
    return undefined;
  }
};

/** One model, as `GET /model/{model}` answers it. */
export async function getModel(ctx: OperationContext, modelId: string): Promise<Model> {
  const found = await findModel(ctx, parseId(modelId, 'model id'));
  return found.origin === 'custom' ? withLiveState(ctx, found.model) : { ...found.model };
}

/**
 * Loads a model into memory: the embedded summarizer's NLP model, or a model through the runtime
 * that runs it. Loading a loaded model changes nothing. A model no runtime runs (no files in its
 * cache folder, no server offering it) is UNPROCESSABLE, with the reason.
 */
export async function loadModel(ctx: OperationContext, modelId: string): Promise<Model> {
  const { model, origin } = await findModel(ctx, parseId(modelId, 'model id'));
  if (origin === 'builtin') {
    await ctx.summarizer.load?.();
    return getModel(ctx, model.id);
  }
  const runtime = await runtimeFor(ctx, model);
  if (!runtime) {
    throw unprocessable(
      model.id,
      `Model "${model.id}" cannot be loaded: no runtime runs it (its cache folder holds no model file, and no server offers it).`,
    );
  }
  try {
    await runtime.load?.(model);
  } catch (error) {
    // A malformed model file names the field at fault.
    const field = (error as { field?: unknown }).field;
    throw new ServiceError('UNPROCESSABLE', `Model "${model.id}" cannot be loaded: ${(error as Error).message}`, {
      resource: 'model',
      id: model.id,
      ...(typeof field === 'string' ? { issues: [{ path: [field], message: (error as Error).message }] } : {}),
    });
  }
  return getModel(ctx, model.id);
}

/** Frees a model's memory; unloading a model that is not loaded changes nothing. */
export async function unloadModel(ctx: OperationContext, modelId: string): Promise<Model> {
  const { model, origin } = await findModel(ctx, parseId(modelId, 'model id'));
  if (origin === 'builtin') await ctx.summarizer.unload();
  else await (await runtimeFor(ctx, model))?.unload?.(model);
  return getModel(ctx, model.id);
}

/**
 * Starts downloading a model's file into its cache folder, in the background (poll
 * {@link downloadProgress}). The source is the model's `unique` when it is an http(s) URL, with an
 * optional `#sha256=<hex>`; `bytes.value`, when set, is the size the file must have. Asking again
 * while it runs joins the same download; asking after an interruption resumes it. A declared size
 * the disk cannot hold (keeping the `minFreeBytes` reserve) is INSUFFICIENT_STORAGE, at once.
 */
export async function downloadModel(ctx: OperationContext, modelId: string): Promise<Model> {
  const { model } = await findModel(ctx, parseId(modelId, 'model id'));
  if (!ctx.downloads || !ctx.cacheRoot)
    throw unprocessable(model.id, 'Models can be downloaded only by a service with a data folder (`dataDir`).');
  let source;
  try {
    source = downloadSourceOf(model.unique, model.bytes?.value);
  } catch (error) {
    throw new ServiceError('INVALID_INPUT', `Model "${model.id}" has a malformed download source: ${(error as Error).message}`, {
      resource: 'model',
      id: model.id,
    });
  }
  if (!source) {
    throw unprocessable(model.id, `Model "${model.id}" has no download source: its \`unique\` is not an http(s) URL of a model file.`);
  }
  if (!(await hasDownloadedFile(ctx.cacheRoot, model.id))) await ctx.downloads.start(model.id, source);
  return getModel(ctx, model.id);
}

/** Stops a model's download and removes its partial file. */
export async function cancelDownload(ctx: OperationContext, modelId: string): Promise<Model> {
  const { model } = await findModel(ctx, parseId(modelId, 'model id'));
  await ctx.downloads?.cancel(model.id);
  return getModel(ctx, model.id);
}

/** Where a model's download stands: a finished file counts as COMPLETED, with its size. */
export async function downloadProgress(ctx: OperationContext, modelId: string): Promise<ModelDownloadProgress> {
  const { model } = await findModel(ctx, parseId(modelId, 'model id'));
  const state = ctx.downloads?.state(model.id);
  if (state && state.status !== 'COMPLETED') {
    const { status, percentage, reason, bytesReceived, bytesTotal } = state;
    return {
      status,
      percentage,
      ...(reason ? { reason } : {}),
      ...(bytesReceived !== undefined ? { bytesReceived } : {}),
      ...(bytesTotal !== undefined ? { bytesTotal } : {}),
    };
  }
  const done = state?.status === 'COMPLETED' || (ctx.cacheRoot !== undefined && (await hasDownloadedFile(ctx.cacheRoot, model.id)));
  if (!done) return { status: 'UNKNOWN', percentage: null };
  // The finished file's size, whether this process downloaded it or found it there: what a client
  // that polled too late to see the download run (a small file, or one pulled before) says it got.
  const bytes = ctx.cacheRoot === undefined ? undefined : await downloadedBytes(ctx.cacheRoot, model.id);
  return { status: 'COMPLETED', percentage: 100, ...(bytes !== undefined ? { bytesReceived: bytes, bytesTotal: bytes } : {}) };
}

/** Changes a custom model's fields (the body is a Model with its id); other models are FORBIDDEN. */
export async function updateModel(ctx: OperationContext, body: unknown): Promise<Model> {
  const { id, ...changes } = parseInput(modelUpdateSchema, body, 'Model');
  const { origin } = await findModel(ctx, id);
  if (origin !== 'custom')
    throw new ServiceError('FORBIDDEN', `Model "${id}" is not a custom model and cannot be changed.`, { resource: 'model', id });
  const updated = await ctx.repository.transact(async (tx) => {
    const current = await tx.get('models', id);
    if (!current) throw notFound('model', id);
    const next = { ...current, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) } as ModelRecord;
    tx.put('models', next);
    return next;
  });
  return withLiveState(ctx, updated);
}

const unprocessable = (id: string, message: string) => new ServiceError('UNPROCESSABLE', message, { resource: 'model', id });
