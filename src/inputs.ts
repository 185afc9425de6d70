import type { z } from 'zod';
import type { annotationUpdateSchema } from './schemas/annotation-inputs.js';
import type {
  conversationSummarizeInputSchema,
  conversationUpdateSchema,
  seededScoreIncrementSchema,
} from './schemas/conversation-inputs.js';
import type { messageUpdateSchema, messageValueUpdateSchema } from './schemas/message-inputs.js';
import type { modelDeleteCacheInputSchema, modelUpdateSchema, seededModelSchema } from './schemas/models.js';
import type { searchInputSchema } from './schemas/search.js';
import type {
  seededAnchorSchema,
  seededAnnotationSchema,
  seededAssetSchema,
  seededConversationMessageSchema,
  seededConversationSchema,
  seededPersonSchema,
  seededRangeSchema,
  seededTagSchema,
  seededWebsiteSchema,
  seededWorkstreamEventSchema,
  seededWorkstreamPatternEngineSourceSchema,
  seededWorkstreamSummarySchema,
} from './schemas/seeds.js';

/**
 * What the service's methods take: the input types of the zod schemas that check them at run
 * time, so a misspelled field fails to compile and the same rule is checked when it runs.
 */
export type SeededConversationInput = z.input<typeof seededConversationSchema>;
export type SeededConversationMessageInput = z.input<typeof seededConversationMessageSchema>;
export type SeededAnchorInput = z.input<typeof seededAnchorSchema>;
export type SeededAssetInput = z.input<typeof seededAssetSchema>;
export type SeededWebsiteInput = z.input<typeof seededWebsiteSchema>;
export type SeededRangeInput = z.input<typeof seededRangeSchema>;
export type SeededWorkstreamSummaryInput = z.input<typeof seededWorkstreamSummarySchema>;
export type SeededAnnotationInput = z.input<typeof seededAnnotationSchema>;
export type SeededTagInput = z.input<typeof seededTagSchema>;
export type SeededPersonInput = z.input<typeof seededPersonSchema>;
export type SeededWorkstreamEventInput = z.input<typeof seededWorkstreamEventSchema>;
export type SeededWorkstreamPatternEngineSourceInput = z.input<typeof seededWorkstreamPatternEngineSourceSchema>;
export type ConversationUpdateInput = z.input<typeof conversationUpdateSchema>;
export type ConversationSummarizeInput = z.input<typeof conversationSummarizeInputSchema>;
export type SeededScoreIncrementInput = z.input<typeof seededScoreIncrementSchema>;
/** What `updateMessage` takes: a ConversationMessage with its id (only the fields it changes need be given). */
export type MessageUpdateInput = z.input<typeof messageUpdateSchema>;
/** What `updateMessageValue` takes: a ConversationMessage's id and its new `fragment`. */
export type MessageValueUpdateInput = z.input<typeof messageValueUpdateSchema>;
/** What `updateAnnotation` takes: an Annotation with its id (only the fields it changes need be given). */
export type AnnotationUpdateInput = z.input<typeof annotationUpdateSchema>;
export type SeededModelInput = z.input<typeof seededModelSchema>;
export type ModelUpdateInput = z.input<typeof modelUpdateSchema>;
export type ModelDeleteCacheInput = z.input<typeof modelDeleteCacheInputSchema>;

/**
 * What the search methods take: the API's SearchInput, `{ engines: { iterable: [{ query }] } }`,
 * engines combined by `type` (`AND`, or `OR` by default) and nested through `operations`.
 */
export type SearchInput = z.input<typeof searchInputSchema>;
