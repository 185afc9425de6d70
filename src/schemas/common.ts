import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { jsonObjectSchema } from './json.js';

/** Upper bound of names and short texts; a guard against accidental megabyte titles. */
export const MAX_NAME_LENGTH = 1_000;

/** A record id as it arrives in a path or a body: non-empty, bounded, no control characters. */
export const idSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(512, 'must be at most 512 characters')
  .regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters');

/** The message of the issue that names a key an input object does not have. */
export const UNKNOWN_FIELD = 'unknown field';

/**
 * A field the official client (`@pieces.app/pieces-os-client`) can send that the service does not
 * use: accepted whatever its value, and read as undefined, so nothing of it is kept. The input
 * objects are strict: a key that is neither one of their fields nor one of these (a misspelling,
 * say) is refused as an `unknown field` (src/validate.ts names it in `issues`).
 */
export const ignoredField = z
  .unknown()
  .transform(() => undefined)
  .optional()
  .meta({ description: 'Sent by the official client; accepted and ignored.' });

/** The client's ReferencedConversation and ReferencedConversationMessage: `{ id }` (`reference` ignored). */
export const referenceSchema = z.strictObject({ schema: ignoredField, id: idSchema, reference: ignoredField });

/** The client's ReferencedModel: `{ id }`. */
export const modelReferenceSchema = z.strictObject({ schema: ignoredField, id: idSchema });

/** The API's GroupedTimestamp: `{ value: ISO 8601 }`. */
export const timestampSchema = z.strictObject({
  schema: ignoredField,
  value: z.iso.datetime({ offset: true }),
  readable: z.string().max(200).optional(),
});

/** A text of up to {@link LIMITS.textChars} characters. */
export const textSchema = z.string().max(LIMITS.textChars, `must be at most ${LIMITS.textChars} characters`);

export const transferableStringSchema = z.strictObject({
  schema: ignoredField,
  raw: textSchema.optional(),
  base64: textSchema.optional(),
  base64_url: textSchema.optional(),
  data_url: textSchema.optional(),
});

/** The client's FragmentFormat (and SeededFragment): its text, and metadata kept as given; `bytes` is ignored. */
export const fragmentSchema = z.strictObject({
  schema: ignoredField,
  string: transferableStringSchema.optional(),
  bytes: ignoredField,
  metadata: jsonObjectSchema.optional(),
});

/** A list of at most `max` items (default {@link LIMITS.listItems}); a longer one is refused before its items are read. */
export const boundedArray = <T extends z.ZodType>(item: T, max: number = LIMITS.listItems) =>
  z.array(item).max(max, `must have at most ${max} items`);

/** A list wrapper of references, the client's FlattenedConversationMessages: `{ iterable: [{ id }] }`. */
export const referenceListSchema = z.strictObject({
  schema: ignoredField,
  iterable: boundedArray(referenceSchema, LIMITS.messagesPerConversation),
  indices: ignoredField,
  score: ignoredField,
});

export const nameSchema = z.string().max(MAX_NAME_LENGTH);

export const messageRoleSchema = z.enum(['UNKNOWN', 'USER', 'SYSTEM', 'ASSISTANT']);
export const conversationTypeSchema = z.enum(['UNKNOWN', 'COPILOT']);
export const sentimentSchema = z.enum(['UNKNOWN', 'LIKE', 'DISLIKE', 'REPORT']);
export const annotationTypeSchema = z.enum(['UNKNOWN', 'DESCRIPTION', 'COMMENT', 'DOCUMENTATION', 'SUMMARY', 'EXPLANATION', 'GIT_COMMIT']);
export const anchorTypeSchema = z.enum(['UNKNOWN', 'FILE', 'DIRECTORY']);
export const mechanismSchema = z.enum(['UNKNOWN', 'MANUAL', 'RECOMMENDED', 'AUTOMATIC', 'INTERNAL', 'DELETED', 'EXTERNAL_AGENT']);

/** Wire enums with many values that grow with each client release: any upper-case token. */
export const openEnumSchema = z.string().regex(/^[A-Za-z0-9_.+]{1,64}$/, 'must be an enum value such as LLAMA_3_8B');

export { jsonObjectSchema };
