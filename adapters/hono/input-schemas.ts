import type { z } from 'zod';
import { KINDS, type RecordKindName } from '../../src/kinds/index.js';
import {
  annotationUpdateSchema,
  conversationSummarizeInputSchema,
  conversationUpdateSchema,
  messageUpdateSchema,
  messageValueUpdateSchema,
  modelDeleteCacheInputSchema,
  modelUpdateSchema,
  seededConversationSchema,
  seededModelSchema,
  seededScoreIncrementSchema,
  seededScoreSchema,
} from '../../src/schemas/index.js';
import { searchInputSchema } from '../../src/schemas/search.js';

type RecordsOf<C extends RecordKindName> = NonNullable<(typeof KINDS)[C]['records']>;

/** The record kinds' seeds by name (SeededAnchor, …), from KINDS (src/kinds/). */
const kindSeeds = Object.fromEntries(
  Object.values(KINDS).flatMap((kind) => ('records' in kind && kind.records ? [[kind.records.seedName, kind.records.seed]] : [])),
) as { [C in RecordKindName as RecordsOf<C>['seedName']]: RecordsOf<C>['seed'] };

/**
 * The request bodies by their name in the OpenAPI document (`#/components/schemas/<name>`): the
 * same zod schemas the service checks its inputs with. A schema used inside another (SeededScore
 * in SeededConversation) is listed so that it is referenced by name rather than repeated.
 */
export const inputSchemas = {
  SeededConversation: seededConversationSchema,
  ConversationUpdate: conversationUpdateSchema,
  SeededScore: seededScoreSchema,
  SeededScoreIncrement: seededScoreIncrementSchema,
  ConversationSummarizeInput: conversationSummarizeInputSchema,
  ...kindSeeds,
  MessageUpdate: messageUpdateSchema,
  MessageValueUpdate: messageValueUpdateSchema,
  AnnotationUpdate: annotationUpdateSchema,
  SeededModel: seededModelSchema,
  ModelUpdate: modelUpdateSchema,
  ModelDeleteCacheInput: modelDeleteCacheInputSchema,
  SearchInput: searchInputSchema,
} as const satisfies Record<string, z.ZodType>;

/** The name of a request body's schema. */
export type InputName = keyof typeof inputSchemas;
