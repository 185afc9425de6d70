import { rm } from 'node:fs/promises';
import type { ModelRegistry, Summarizer } from '../ports.js';
import type { ModelRecord } from '../records.js';
import { cacheFolderOf } from './cache-folder.js';

export interface LocalModelRegistryOptions {
  /** The summarizer that ships with the service; it is listed as a built-in model. */
  readonly summarizer: Summarizer;
  /**
   * The folder that holds one sub-folder of downloaded files per model. Without it nothing is ever
   * downloaded, and deleting a cache has nothing to remove.
   */
  readonly cacheRoot?: string;
}

// A fixed date: a built-in model is as old as the release that ships it, not the process.
const BUILT_IN_CREATED = { value: '2026-01-01T00:00:00.000Z' };

/** The default ModelRegistry: the embedded summarizer as the one built-in model, caches on disk. */
export function createLocalModelRegistry(options: LocalModelRegistryOptions): ModelRegistry {
  const { summarizer, cacheRoot } = options;
  return {
    builtins(): ModelRecord[] {
      const info = summarizer.model;
      return [
        {
          id: info.id,
          version: info.version,
          created: BUILT_IN_CREATED,
          name: info.name,
          description: info.description,
          cloud: info.cloud ?? false,
          type: info.type,
          usage: info.usage,
          ...(info.provider ? { provider: info.provider } : {}),
          ...(info.foundation ? { foundation: info.foundation } : {}),
          custom: false,
          // The embedded model ships inside the npm package: nothing to download.
          downloaded: true,
          downloading: false,
          loaded: summarizer.isLoaded(),
          cpu: true,
        },
      ];
    },
    async unloadAll() {
      if (!summarizer.isLoaded()) return [];
      await summarizer.unload();
      return [summarizer.model.id];
    },
    async deleteCache(modelId) {
      if (!cacheRoot) return;
      await rm(cacheFolderOf(cacheRoot, modelId), { recursive: true, force: true });
    },
  };
}
