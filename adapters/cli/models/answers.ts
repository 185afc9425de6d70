import type { Model, ModelDownloadProgress, ModelFailure } from '../../../src/wire.js';

/**
 * The server's answers as the model commands read them: the service's own answer types, with
 * every field but the id and name optional, since the commands must cope with an older or newer
 * server that lacks one.
 */

/** When and why a model failed to load or to download. */
export type Failure = ModelFailure;

/** A model, as `GET /models` lists it and `GET /model/{model}` answers it. */
export type ApiModel = Pick<Model, 'id' | 'name'> & Partial<Readonly<Model>>;

/** `GET /models`. */
export interface ApiModels {
  readonly iterable: readonly ApiModel[];
}

/** `GET /model/{model}/download/progress`; the `bytes…` fields come from servers of this package. */
export type DownloadProgress = ModelDownloadProgress;

/** A model id as a path segment of a route. */
export const segment = (id: string): string => encodeURIComponent(id);
