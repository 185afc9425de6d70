import type { z } from 'zod';
import {
  annotationUpdateSchema,
  conversationSummarizeInputSchema,
  conversationUpdateSchema,
  messageUpdateSchema,
  messageValueUpdateSchema,
  modelDeleteCacheInputSchema,
  modelUpdateSchema,
  seededAnchorSchema,
  seededAnnotationSchema,
  seededAssetSchema,
  seededConversationMessageSchema,
  seededConversationSchema,
  seededModelSchema,
  seededRangeSchema,
  seededScoreIncrementSchema,
  seededScoreSchema,
  seededWebsiteSchema,
  seededWorkstreamSummarySchema,
} from '../../src/schemas/index.js';
import { searchInputSchema } from '../../src/schemas/search.js';

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
  SeededConversationMessage: seededConversationMessageSchema,
  MessageUpdate: messageUpdateSchema,
  MessageValueUpdate: messageValueUpdateSchema,
  SeededAnchor: seededAnchorSchema,
  SeededAsset: seededAssetSchema,
  SeededWebsite: seededWebsiteSchema,
  SeededRange: seededRangeSchema,
  SeededWorkstreamSummary: seededWorkstreamSummarySchema,
  SeededAnnotation: seededAnnotationSchema,
  AnnotationUpdate: annotationUpdateSchema,
  SeededModel: seededModelSchema,
  ModelUpdate: modelUpdateSchema,
  ModelDeleteCacheInput: modelDeleteCacheInputSchema,
  SearchInput: searchInputSchema,
} as const satisfies Record<string, z.ZodType>;

/** The name of a request body's schema. */
export type InputName = keyof typeof inputSchemas;
