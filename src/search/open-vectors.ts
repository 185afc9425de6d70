import path from 'node:path';
import { readSkippingDamaged } from '../damaged-records.js';
import type { Embedder, IndexedDocRef, Repository } from '../ports.js';
import type { SearchableRepository } from './indexed-repository.js';
import { VectorIndex } from './vector-index.js';

/**
 * The vectors of meaning of a service: loaded from `folder` (one file per embedding model),
 * checked against the text index's documents (those missing are queued, those gone dropped), and
 * fed every committed write from then on, through the store's change feed (other processes'
 * writes too, when they share the store).
 */
export async function openVectors(
  embedder: Embedder,
  repository: SearchableRepository,
  options: { folder?: string; logger: { warn(message: string): void }; reconcile: boolean },
): Promise<VectorIndex> {
  const vectors = new VectorIndex({
    embedder,
    logger: options.logger,
    ...(options.folder ? { file: path.join(options.folder, `vectors-${fileSafe(embedder.model)}.bin`) } : {}),
    readTexts: (docs) => readTexts(repository, docs),
  });
  await vectors.load();
  // After the text index has taken each batch (the store's own, or the one `withSearch` keeps):
  // the check below never drops a vector of a write the index does not hold yet.
  repository.changes.subscribe((batch) => vectors.apply(batch.changes));
  // Checked once the text index is there (a store reads it in the background): not awaited here.
  if (options.reconcile && repository.search.documents) {
    repository.search.documents().then(
      (documents) => vectors.reconcile(documents),
      (error: Error) => options.logger.warn(`The vectors were not checked against the search index: ${error.message}`),
    );
  }
  return vectors;
}

/** The texts of these documents as the store holds them now (undefined for one that is gone). */
async function readTexts(repository: Repository, docs: readonly IndexedDocRef[]): Promise<(string | undefined)[]> {
  return repository.read(async (view) => {
    const texts: (string | undefined)[] = new Array(docs.length);
    const read = async (
      collection: 'messages' | 'conversations' | 'annotations',
      pick: (doc: IndexedDocRef) => boolean,
      text: (record: never) => string,
    ) => {
      const indices = docs.flatMap((doc, i) => (pick(doc) ? [i] : []));
      // One damaged on disk reads as gone: its vector is dropped, the rest kept.
      const records = await readSkippingDamaged(
        view,
        collection,
        indices.map((i) => docs[i]!.id),
        [],
      );
      indices.forEach((i, j) => {
        const record = records[j];
        texts[i] = record ? text(record as never) : undefined;
      });
    };
    await read(
      'messages',
      (doc) => doc.field === 'userMessage' || doc.field === 'message',
      (m: { fragment?: { string?: { raw?: string } } }) => m.fragment?.string?.raw ?? '',
    );
    await read(
      'conversations',
      (doc) => doc.field === 'name',
      (c: { name?: string }) => c.name ?? '',
    );
    await read(
      'annotations',
      (doc) => doc.field === 'annotation',
      (a: { text: string }) => a.text,
    );
    return texts;
  });
}

/** A model name as a file name: `nomic-embed-text:latest` → `nomic-embed-text_latest`. */
const fileSafe = (model: string) => model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100);
