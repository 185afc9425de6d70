/**
 * The server's answers as the model commands read them: the fields they show, no more (the
 * server's own types are in src/; these are what crosses the wire, and the commands must cope
 * with an older or newer server that lacks a field).
 */

/** When and why a model failed to load or to download. */
export interface Failure {
  readonly reason: string;
  readonly at: string;
}

/** A model, as `GET /models` lists it and `GET /model/{model}` answers it. */
export interface ApiModel {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly created?: { readonly value?: string };
  readonly version?: string;
  readonly type?: string;
  readonly usage?: string;
  readonly foundation?: string;
  readonly provider?: string;
  readonly unique?: string;
  readonly parameters?: number;
  readonly quantization?: string;
  readonly bytes?: { readonly value?: number };
  readonly ram?: { readonly value?: number };
  readonly cloud?: boolean;
  readonly cpu?: boolean;
  readonly custom?: boolean;
  readonly downloaded?: boolean;
  readonly downloading?: boolean;
  readonly loaded?: boolean;
  readonly maxTokens?: Readonly<Record<string, unknown>>;
  readonly loadFailure?: Failure;
  readonly downloadFailure?: Failure;
}

/** `GET /models`. */
export interface ApiModels {
  readonly iterable: readonly ApiModel[];
}

/** `GET /model/{model}/download/progress`; the `bytes…` fields come from servers of this package. */
export interface DownloadProgress {
  readonly status: 'UNKNOWN' | 'INITIALIZED' | 'IN-PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELED';
  readonly percentage: number | null;
  readonly reason?: string;
  readonly bytesReceived?: number;
  readonly bytesTotal?: number;
}

/** A model id as a path segment of a route. */
export const segment = (id: string): string => encodeURIComponent(id);
