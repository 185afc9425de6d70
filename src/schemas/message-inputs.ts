import { z } from 'zod';
import { fragmentSchema, idSchema, ignoredField, jsonObjectSchema, messageRoleSchema, sentimentSchema, timestampSchema } from './common.js';

/**
 * The keys of the official client's ConversationMessage (its `ConversationMessageToJSON`) that
 * neither message update applies: timestamps, the conversation (a message does not move), the
 * score (see scores/increment) and every link (see the associate routes).
 */
const ignoredMessageKeys = {
  schema: ignoredField,
  created: ignoredField,
  updated: ignoredField,
  conversation: ignoredField,
  score: ignoredField,
  annotations: ignoredField,
  websites: ignoredField,
  persons: ignoredField,
  anchors: ignoredField,
  assets: ignoredField,
  ranges: ignoredField,
  summaries: ignoredField,
  tags: ignoredField,
  messages: ignoredField,
  workstream_events: ignoredField,
  sources: ignoredField,
};

/**
 * Body of `POST /message/update`: a ConversationMessage, as the official client sends it (the whole
 * message it read). Only `id` is required; `fragment`, `role`, `sentiment`, `model` and `deleted`
 * are applied (`null` clears `sentiment`, `model` or `deleted`), the rest accepted and ignored.
 * Any other key is refused.
 */
export const messageUpdateSchema = z.strictObject({
  ...ignoredMessageKeys,
  id: idSchema,
  fragment: fragmentSchema.optional(),
  role: messageRoleSchema.optional(),
  sentiment: sentimentSchema.nullable().optional(),
  model: jsonObjectSchema.nullable().optional(),
  deleted: timestampSchema.nullable().optional(),
});

/**
 * Body of `POST /message/update/value`: a ConversationMessage whose `fragment` is the message's new
 * value (a reply that grew as a model streamed it, a prompt edited before it is sent again). Only
 * `id` and `fragment` are read; the message's other keys are accepted and ignored.
 */
export const messageValueUpdateSchema = z.strictObject({
  ...ignoredMessageKeys,
  id: idSchema,
  fragment: fragmentSchema,
  role: ignoredField,
  sentiment: ignoredField,
  model: ignoredField,
  deleted: ignoredField,
});

export type MessageUpdate = z.infer<typeof messageUpdateSchema>;
export type MessageValueUpdate = z.infer<typeof messageValueUpdateSchema>;
