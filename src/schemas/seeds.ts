import { z } from 'zod';
import { LIMITS } from '../limits.js';
import {
  anchorTypeSchema,
  annotationTypeSchema,
  boundedArray,
  conversationTypeSchema,
  fragmentSchema,
  idSchema,
  jsonObjectSchema,
  mechanismSchema,
  messageRoleSchema,
  nameSchema,
  openEnumSchema,
  referenceSchema,
  sentimentSchema,
  textSchema,
  timestampSchema,
} from './common.js';

/**
 * The client's Seeded* bodies: the fields a new record is made from. Required fields are the
 * client's; unknown keys are dropped, so newer clients that send more are still accepted.
 */

export const seededMessageSchema = z.object({
  role: messageRoleSchema,
  fragment: fragmentSchema,
  sentiment: sentimentSchema.optional(),
  model: jsonObjectSchema.optional(),
  created: timestampSchema.optional(),
});

/** Body of `POST /messages/create`: a message added at the end of its conversation. */
export const seededConversationMessageSchema = seededMessageSchema.extend({
  conversation: referenceSchema,
});

export const seededAnchorSchema = z.object({
  type: anchorTypeSchema,
  fullpath: z.string().min(1).max(4_096),
  name: nameSchema.optional(),
  watch: z.boolean().optional(),
  platform: openEnumSchema.optional(),
  /** A conversation to link the new anchor to. */
  conversation: idSchema.optional(),
});

export const seededAnnotationSchema = z.object({
  type: annotationTypeSchema,
  text: textSchema,
  mechanism: mechanismSchema.optional(),
  favorited: z.boolean().optional(),
  model: idSchema.optional(),
  /** The conversation the annotation belongs to. */
  conversation: idSchema.optional(),
});

export const seededConversationSchema = z.object({
  type: conversationTypeSchema,
  name: nameSchema.optional(),
  favorited: z.boolean().optional(),
  application: jsonObjectSchema.optional(),
  model: referenceSchema.optional(),
  pipeline: jsonObjectSchema.optional(),
  demo: z.boolean().optional(),
  /** Messages to start with, in order: a plain array, not a list wrapper. */
  messages: boundedArray(seededMessageSchema, LIMITS.messagesPerCreate).optional(),
  anchors: boundedArray(seededAnchorSchema.omit({ conversation: true })).optional(),
  annotations: boundedArray(seededAnnotationSchema.omit({ conversation: true })).optional(),
});

const bareSeededAssetSchema = z.object({
  application: jsonObjectSchema,
  format: z.object({
    fragment: fragmentSchema.optional(),
    file: jsonObjectSchema.optional(),
    classification: jsonObjectSchema.optional(),
  }),
  metadata: z.object({ name: nameSchema.optional() }).loose().optional(),
});

/**
 * Body of `POST /assets/create`. The official client sends a Seed, `{ type: "SEEDED_ASSET",
 * asset: SeededAsset }`; a bare SeededAsset is accepted too.
 */
export const seededAssetSchema = z.preprocess(
  (value) => (isRecord(value) && value.type === 'SEEDED_ASSET' && isRecord(value.asset) ? value.asset : value),
  bareSeededAssetSchema,
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const seededWebsiteSchema = z.object({
  url: z.string().min(1).max(8_192),
  name: nameSchema,
  mechanism: mechanismSchema.optional(),
  /** A conversation to link the new website to. */
  conversation: idSchema.optional(),
});

export const seededWorkstreamSummarySchema = z.object({
  name: nameSchema,
  /** The model that wrote the summary; kept as given. */
  model: jsonObjectSchema,
  favorited: z.boolean().optional(),
});

export const seededRangeSchema = z.object({
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
  between: z.boolean().optional(),
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
