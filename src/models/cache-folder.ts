import path from 'node:path';

/**
 * The folder that holds what was downloaded for `modelId`: always a direct child of `cacheRoot`,
 * whatever the id contains. The id is percent-encoded (dots too, so `..` cannot climb), and the
 * result is checked once more, because this path is handed to a recursive delete.
 */
export function cacheFolderOf(cacheRoot: string, modelId: string): string {
  const root = path.resolve(cacheRoot);
  const name = encodeURIComponent(modelId).replace(/\./g, '%2E').replace(/\*/g, '%2A');
  const folder = path.resolve(root, name);
  if (name.length === 0 || path.dirname(folder) !== root) {
    throw new Error(`Refusing a cache folder outside ${root} for model id ${JSON.stringify(modelId)}.`);
  }
  return folder;
}
