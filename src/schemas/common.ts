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

export const referenceSchema = z.object({ id: idSchema });

/** The API's GroupedTimestamp: `{ value: ISO 8601 }`. */
export const timestampSchema = z.object({
  value: z.iso.datetime({ offset: true }),
  readable: z.string().max(200).optional(),
});

/** A text of up to {@link LIMITS.textChars} characters. */
export const textSchema = z.string().max(LIMITS.textChars, `must be at most ${LIMITS.textChars} characters`);

export const transferableStringSchema = z.object({
  raw: textSchema.optional(),
  base64: textSchema.optional(),
  base64_url: textSchema.optional(),
  data_url: textSchema.optional(),
});

export const fragmentSchema = z.object({
  string: transferableStringSchema.optional(),
  metadata: jsonObjectSchema.optional(),
});

/** A list of at most `max` items (default {@link LIMITS.listItems}); a longer one is refused before its items are read. */
export const boundedArray = <T extends z.ZodType>(item: T, max: number = LIMITS.listItems) =>
  z.array(item).max(max, `must have at most ${max} items`);

/** A list wrapper of references: `{ iterable: [{ id }] }`. */
export const referenceListSchema = z.object({ iterable: boundedArray(referenceSchema, LIMITS.messagesPerConversation) });

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
