import { readdir } from 'node:fs/promises';
import path from 'node:path';

// A shard of a split model: `name-00001-of-00003.gguf`.
const SHARD = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * The GGUF file to load from a model's cache folder, or undefined when it holds none that is
 * complete. Only names ending in `.gguf` count, so a download in progress (`<name>.gguf.partial`,
 * renamed when it is whole and checked) is never chosen. A split model counts through its first
 * shard, and only once every shard is there. A multimodal projector (`mmproj…`) is not a model.
 * With several models in the folder, the first by name is chosen, so the choice is stable.
 */
export async function findGguf(folder: string): Promise<string | undefined> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return undefined; // no folder: nothing downloaded
  }
  const names = new Set(entries.filter((entry) => entry.isFile() && /\.gguf$/i.test(entry.name)).map((entry) => entry.name));
  const candidates = [...names].filter((name) => !/^mmproj/i.test(name)).sort();
  for (const name of candidates) {
    const shard = SHARD.exec(name);
    if (!shard) return path.join(folder, name);
    const [, stem, index, count] = shard;
    if (Number(index) !== 1) continue;
    const parts = Array.from({ length: Number(count) }, (_, i) => `${stem}-${String(i + 1).padStart(5, '0')}-of-${count}.gguf`);
    if (parts.every((part) => names.has(part))) return path.join(folder, name);
  }
  return undefined;
}
