import type { z } from 'zod';
import { type CollectionName, type Collections, KINDS, type RecordKindName } from '../kinds/index.js';
import type { RecordOperations } from '../kinds/kind.js';

export type { RecordKindName } from '../kinds/index.js';
export type { BuildContext } from '../kinds/kind.js';

/** How one kind of record is created, listed, rendered and deleted: its entry in KINDS (src/kinds/). */
export interface RecordKind<C extends CollectionName, S extends z.ZodType> extends RecordOperations<Collections[C], S> {
  readonly collection: C;
  readonly resource: string;
}

/** The records the generic operations create, list and delete, by collection: derived from KINDS. */
export const RECORD_KINDS = Object.fromEntries(
  Object.values(KINDS).flatMap((kind) =>
    'records' in kind && kind.records ? [[kind.collection, { ...kind.records, collection: kind.collection, resource: kind.resource }]] : [],
  ),
) as unknown as {
  readonly [C in RecordKindName]: RecordKind<C, NonNullable<(typeof KINDS)[C]['records']>['seed']> &
    NonNullable<(typeof KINDS)[C]['records']>;
};
