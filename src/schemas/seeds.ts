import { z } from 'zod';
import { LIMITS } from '../limits.js';
import {
  anchorTypeSchema,
  annotationTypeSchema,
  boundedArray,
  conversationTypeSchema,
  fragmentSchema,
  idSchema,
  ignoredField,
  jsonObjectSchema,
  mechanismSchema,
  messageRoleSchema,
  modelReferenceSchema,
  nameSchema,
  openEnumSchema,
  referenceSchema,
  sentimentSchema,
  textSchema,
  timestampSchema,
  UNKNOWN_FIELD,
} from './common.js';

/**
 * The client's Seeded* bodies: the fields a new record is made from. Required fields are the
 * client's. Each object takes exactly the keys the official client's model can send (its
 * `…ToJSON`): those the service does not use are {@link ignoredField}s, accepted and dropped, and
 * any other key is refused as an unknown field. Free-form objects (`application`, `pipeline`, a
 * message's `model`, `metadata`) are JSON objects kept as given.
 */

/** The client's SeededConversationMessage inside a SeededConversation: its `conversation` is the new one. */
export const seededMessageSchema = z.strictObject({
  schema: ignoredField,
  role: messageRoleSchema,
  fragment: fragmentSchema,
  sentiment: sentimentSchema.optional(),
  model: jsonObjectSchema.optional(),
  created: timestampSchema.optional(),
  conversation: ignoredField,
  assets: ignoredField,
  ranges: ignoredField,
  summaries: ignoredField,
  tags: ignoredField,
  messages: ignoredField,
  workstream_events: ignoredField,
  sources: ignoredField,
  anchors: ignoredField,
});

/** Body of `POST /messages/create`: a message added at the end of its conversation. */
export const seededConversationMessageSchema = seededMessageSchema.extend({
  conversation: referenceSchema,
});

export const seededAnchorSchema = z.strictObject({
  schema: ignoredField,
  type: anchorTypeSchema,
  fullpath: z.string().min(1).max(4_096),
  name: nameSchema.optional(),
  watch: z.boolean().optional(),
  platform: openEnumSchema.optional(),
  /** A conversation to link the new anchor to. */
  conversation: idSchema.optional(),
  asset: ignoredField,
  annotations: ignoredField,
  persons: ignoredField,
});

export const seededAnnotationSchema = z.strictObject({
  schema: ignoredField,
  type: annotationTypeSchema,
  text: textSchema,
  mechanism: mechanismSchema.optional(),
  favorited: z.boolean().optional(),
  model: idSchema.optional(),
  /** The conversation the annotation belongs to. */
  conversation: idSchema.optional(),
  asset: ignoredField,
  person: ignoredField,
  pseudo: ignoredField,
  anchor: ignoredField,
  workstream_summary: ignoredField,
  messages: ignoredField,
  assets: ignoredField,
  persons: ignoredField,
  anchors: ignoredField,
  conversations: ignoredField,
  websites: ignoredField,
  tags: ignoredField,
  summaries: ignoredField,
  workstream_events: ignoredField,
});

export const seededConversationSchema = z.strictObject({
  schema: ignoredField,
  type: conversationTypeSchema,
  name: nameSchema.optional(),
  favorited: z.boolean().optional(),
  application: jsonObjectSchema.optional(),
  model: modelReferenceSchema.optional(),
  pipeline: jsonObjectSchema.optional(),
  demo: z.boolean().optional(),
  /** Messages to start with, in order: a plain array, not a list wrapper. */
  messages: boundedArray(seededMessageSchema, LIMITS.messagesPerCreate).optional(),
  /** Anchors and annotations of the new conversation: a `conversation` they name is ignored. */
  anchors: boundedArray(seededAnchorSchema.extend({ conversation: ignoredField })).optional(),
  annotations: boundedArray(seededAnnotationSchema.extend({ conversation: ignoredField })).optional(),
  assets: ignoredField,
  websites: ignoredField,
});

/** The client's SeededAssetMetadata: only `name` is used. */
const seededAssetMetadataSchema = z.strictObject({
  schema: ignoredField,
  name: nameSchema.optional(),
  mechanism: ignoredField,
  tags: ignoredField,
  websites: ignoredField,
  sensitives: ignoredField,
  persons: ignoredField,
  annotations: ignoredField,
  hints: ignoredField,
  anchors: ignoredField,
});

const bareSeededAssetSchema = z.strictObject({
  schema: ignoredField,
  application: jsonObjectSchema,
  format: z.strictObject({
    schema: ignoredField,
    fragment: fragmentSchema.optional(),
    file: jsonObjectSchema.optional(),
    classification: jsonObjectSchema.optional(),
  }),
  metadata: seededAssetMetadataSchema.optional(),
  discovered: ignoredField,
  available: ignoredField,
  pseudo: ignoredField,
  enrichment: ignoredField,
  demo: ignoredField,
});

/** The keys of the client's Seed, the wrapper it sends an asset in; only `type` and `asset` are used. */
const SEED_KEYS = new Set(['schema', 'type', 'asset', 'person', 'anchor', 'website']);

/**
 * Body of `POST /assets/create`. The official client sends a Seed, `{ type: "SEEDED_ASSET",
 * asset: SeededAsset }`; a bare SeededAsset is accepted too. A key the Seed does not have is
 * refused, as in the asset itself.
 */
export const seededAssetSchema = z.preprocess((value, ctx) => {
  if (!(isRecord(value) && value.type === 'SEEDED_ASSET' && isRecord(value.asset))) return value;
  for (const key of Object.keys(value)) {
    if (!SEED_KEYS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: UNKNOWN_FIELD, input: value });
  }
  return value.asset;
}, bareSeededAssetSchema);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const seededWebsiteSchema = z.strictObject({
  schema: ignoredField,
  url: z.string().min(1).max(8_192),
  name: nameSchema,
  mechanism: mechanismSchema.optional(),
  /** A conversation to link the new website to. */
  conversation: idSchema.optional(),
  asset: ignoredField,
  person: ignoredField,
});

export const seededWorkstreamSummarySchema = z.strictObject({
  schema: ignoredField,
  name: nameSchema,
  /** The model that wrote the summary; kept as given. */
  model: jsonObjectSchema,
  favorited: z.boolean().optional(),
  events: ignoredField,
  annotations: ignoredField,
  ranges: ignoredField,
  websites: ignoredField,
  anchors: ignoredField,
  assets: ignoredField,
  conversations: ignoredField,
  persons: ignoredField,
  tags: ignoredField,
  applications: ignoredField,
  workstreamSummariesVector: ignoredField,
  processing: ignoredField,
  mechanism: ignoredField,
});

export const seededRangeSchema = z.strictObject({
  schema: ignoredField,
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
  between: z.boolean().optional(),
  summary: ignoredField,
  conversation: ignoredField,
});

export type SeededMessage = z.infer<typeof seededMessageSchema>;
export type SeededConversationMessage = z.infer<typeof seededConversationMessageSchema>;
export type SeededConversation = z.infer<typeof seededConversationSchema>;
export type SeededAnchor = z.infer<typeof seededAnchorSchema>;
export type SeededAnnotation = z.infer<typeof seededAnnotationSchema>;
export type SeededAsset = z.infer<typeof seededAssetSchema>;
export type SeededWebsite = z.infer<typeof seededWebsiteSchema>;
export type SeededWorkstreamSummary = z.infer<typeof seededWorkstreamSummarySchema>;
export type SeededRange = z.infer<typeof seededRangeSchema>;

/** Body of `POST /tags/create`: the client's SeededTag. */
export const seededTagSchema = z.strictObject({
  schema: ignoredField,
  text: nameSchema,
  category: openEnumSchema.optional(),
  mechanism: mechanismSchema.optional(),
  asset: ignoredField,
  person: ignoredField,
  tagsVector: ignoredField,
});

/** Body of `POST /persons/create`: the client's SeededPerson; `type` (basic or platform details) is kept as given. */
export const seededPersonSchema = z.strictObject({
  schema: ignoredField,
  type: jsonObjectSchema,
  mechanism: mechanismSchema.optional(),
  access: ignoredField,
  model: ignoredField,
  asset: ignoredField,
  annotations: ignoredField,
  anchors: ignoredField,
});

/** Body of `POST /workstream_events/create`: the client's SeededWorkstreamEvent. */
export const seededWorkstreamEventSchema = z.strictObject({
  schema: ignoredField,
  application: jsonObjectSchema,
  trigger: jsonObjectSchema,
  context: jsonObjectSchema.optional(),
  readable: textSchema.optional(),
  score: ignoredField,
  summary: ignoredField,
  internal_identifier: ignoredField,
  workstreamEventsVector: ignoredField,
  processing: ignoredField,
  tags: ignoredField,
  anchors: ignoredField,
  websites: ignoredField,
  persons: ignoredField,
});

/** Body of `POST /workstream_pattern_engine/sources/create`: the client's SeededWorkstreamPatternEngineSource. */
export const seededWorkstreamPatternEngineSourceSchema = z.strictObject({
  schema: ignoredField,
  raw: jsonObjectSchema,
  readable: textSchema,
  filter: z.boolean().optional(),
  accessibility: ignoredField,
});

export type SeededTag = z.infer<typeof seededTagSchema>;
export type SeededPerson = z.infer<typeof seededPersonSchema>;
export type SeededWorkstreamEvent = z.infer<typeof seededWorkstreamEventSchema>;
export type SeededWorkstreamPatternEngineSource = z.infer<typeof seededWorkstreamPatternEngineSourceSchema>;
