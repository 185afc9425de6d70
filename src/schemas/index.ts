// The zod schemas that check every input, by name. Values only: a namespace export that also
// carries types is declared wrongly by the type bundler (types become values), and the input
// types are exported from the package root (`SeededConversationInput`, …) anyway.

export { annotationUpdateSchema } from './annotation-inputs.js';
export {
  anchorTypeSchema,
  annotationTypeSchema,
  boundedArray,
  conversationTypeSchema,
  fragmentSchema,
  idSchema,
  ignoredField,
  jsonObjectSchema,
  MAX_NAME_LENGTH,
  mechanismSchema,
  messageRoleSchema,
  modelReferenceSchema,
  nameSchema,
  openEnumSchema,
  referenceListSchema,
  referenceSchema,
  sentimentSchema,
  textSchema,
  timestampSchema,
  transferableStringSchema,
} from './common.js';
export {
  conversationSummarizeInputSchema,
  conversationUpdateSchema,
  seededScoreIncrementSchema,
  seededScoreSchema,
} from './conversation-inputs.js';
export { messageUpdateSchema, messageValueUpdateSchema } from './message-inputs.js';
export { modelDeleteCacheInputSchema, modelTypeSchema, modelUpdateSchema, modelUsageSchema, seededModelSchema } from './models.js';
export { searchEnginesSchema, searchInputSchema } from './search.js';
export {
  seededAnchorSchema,
  seededAnnotationSchema,
  seededAssetSchema,
  seededConversationMessageSchema,
  seededConversationSchema,
  seededMessageSchema,
  seededRangeSchema,
  seededWebsiteSchema,
  seededWorkstreamSummarySchema,
} from './seeds.js';
