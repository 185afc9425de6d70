import { z } from 'zod';

/**
 * The answers' shapes, as zod schemas: what the OpenAPI document says each route returns (see
 * `src/wire.ts` for the TypeScript types they mirror). They describe, they do not check: the service
 * builds its answers itself. Objects are loose (`z.looseObject`): an answer may carry more fields
 * than listed, as the API's newer releases do, and clients ignore what they do not know.
 */

const free = z.record(z.string(), z.unknown());
const ref = z.looseObject({ id: z.string() });

export const timestampAnswerSchema = z.looseObject({
  value: z.string().describe('ISO 8601 date and time'),
  readable: z.string().optional(),
});

const scoreSchema = z.looseObject({
  manual: z.number(),
  automatic: z.number(),
  priority: z.number().optional(),
  reuse: z.number().optional(),
  update: z.number().optional(),
  reference: z.number().optional(),
  searched: z.number().optional(),
});

const fragmentAnswerSchema = z
  .looseObject({
    string: z
      .looseObject({
        raw: z.string().optional(),
        base64: z.string().optional(),
        base64_url: z.string().optional(),
        data_url: z.string().optional(),
      })
      .optional(),
    metadata: free.optional(),
  })
  .describe('Without `string` when transferables=false.');

/** A list wrapper of references (`Flattened…` in the client); `iterable` is always present. */
const referenceList = (item: z.ZodType = ref) =>
  z.looseObject({ iterable: z.array(item), indices: z.record(z.string(), z.number()).optional() });

const flatReferences = referenceList().describe('A list wrapper of `{ id }` references.');

const common = { id: z.string(), created: timestampAnswerSchema, updated: timestampAnswerSchema };

export const conversationMessageAnswerSchema = z.looseObject({
  ...common,
  conversation: ref,
  role: z.enum(['UNKNOWN', 'USER', 'SYSTEM', 'ASSISTANT']),
  fragment: fragmentAnswerSchema.optional(),
  sentiment: z.string().optional(),
  model: free.optional(),
  score: scoreSchema.optional(),
  deleted: timestampAnswerSchema.optional(),
  annotations: flatReferences.optional(),
});

export const conversationMessagesAnswerSchema = z.looseObject({
  iterable: z.array(conversationMessageAnswerSchema),
  indices: z.record(z.string(), z.number()).describe("Each message's position in the whole conversation."),
  next: z.number().int().optional().describe('When there is more: the `offset` of the next page.'),
});

export const annotationAnswerSchema = z.looseObject({
  ...common,
  type: z.string(),
  text: z.string(),
  mechanism: z.string().optional(),
  favorited: z.boolean().optional(),
  model: ref.optional(),
  conversation: ref.optional(),
  messages: flatReferences.optional(),
});

export const conversationAnswerSchema = z.looseObject({
  ...common,
  type: z.enum(['UNKNOWN', 'COPILOT']),
  name: z.string().optional(),
  favorited: z.boolean().optional(),
  deleted: timestampAnswerSchema.optional(),
  model: ref.optional(),
  score: scoreSchema.optional(),
  application: free.optional(),
  pipeline: free.optional(),
  demo: z.boolean().optional(),
  messages: z.looseObject({
    iterable: z.array(z.looseObject({ id: z.string(), reference: conversationMessageAnswerSchema.optional() })),
    indices: z.record(z.string(), z.number()),
  }),
  annotations: referenceList(z.looseObject({ id: z.string(), reference: annotationAnswerSchema.optional() })),
  anchors: flatReferences,
  assets: flatReferences,
  websites: flatReferences,
  summaries: flatReferences,
  grounding: z.looseObject({ messages: flatReferences, temporal: z.looseObject({ workstreams: flatReferences }) }),
});

export const anchorAnswerSchema = z.looseObject({
  ...common,
  type: z.enum(['UNKNOWN', 'FILE', 'DIRECTORY']),
  name: z.string().optional(),
  watch: z.boolean().optional(),
  points: referenceList(),
  conversations: flatReferences,
});

export const assetAnswerSchema = z.looseObject({
  ...common,
  name: z.string().optional(),
  creator: z.string(),
  mechanism: z.string(),
  formats: z.looseObject({ iterable: z.array(z.looseObject({ id: z.string(), fragment: fragmentAnswerSchema.optional() })) }),
  preview: z.looseObject({ base: ref }),
  original: ref,
  conversations: flatReferences,
});

export const websiteAnswerSchema = z.looseObject({ ...common, url: z.string(), name: z.string(), conversations: flatReferences });

export const workstreamSummaryAnswerSchema = z.looseObject({
  ...common,
  name: z.string(),
  model: free,
  favorited: z.boolean().optional(),
  conversations: flatReferences,
});

export const rangeAnswerSchema = z.looseObject({
  ...common,
  from: timestampAnswerSchema.optional(),
  to: timestampAnswerSchema.optional(),
  between: z.boolean().optional(),
  conversations: flatReferences,
});

const byteDescriptor = z.looseObject({ value: z.number(), readable: z.string() });

const failureSchema = z.object({ reason: z.string(), at: z.string().describe('ISO 8601') });

export const modelAnswerSchema = z.looseObject({
  id: z.string(),
  version: z.string(),
  created: timestampAnswerSchema,
  name: z.string(),
  cloud: z.boolean(),
  type: z.string(),
  usage: z.string(),
  description: z.string().optional(),
  bytes: byteDescriptor.optional(),
  ram: byteDescriptor.optional(),
  quantization: z.string().optional(),
  foundation: z.string().optional(),
  downloaded: z.boolean().optional(),
  loaded: z.boolean().optional(),
  downloading: z.boolean().optional(),
  unique: z.string().optional(),
  parameters: z.number().optional(),
  provider: z.string().optional(),
  cpu: z.boolean().optional(),
  maxTokens: free.optional(),
  custom: z.boolean().optional(),
  capabilities: free.optional(),
  loadFailure: failureSchema
    .optional()
    .describe('Set while the model is marked failed to load: it is not loaded again until its files change or it is loaded explicitly.'),
  downloadFailure: failureSchema.optional().describe("Why the model's last download failed."),
});

/** A snapshot of a collection, or one page of it (`next` when there is more). */
export const listAnswerSchema = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    iterable: z.array(item),
    next: z.number().int().optional().describe('When the list goes on: the `offset` of the next page (also in the `Link` header).'),
  });

export const conversationsAnswerSchema = listAnswerSchema(conversationAnswerSchema);
export const modelsAnswerSchema = listAnswerSchema(modelAnswerSchema);
export const anchorsAnswerSchema = listAnswerSchema(anchorAnswerSchema);
export const assetsAnswerSchema = listAnswerSchema(assetAnswerSchema);
export const websitesAnswerSchema = listAnswerSchema(websiteAnswerSchema);
export const rangesAnswerSchema = listAnswerSchema(rangeAnswerSchema);
export const workstreamSummariesAnswerSchema = listAnswerSchema(workstreamSummaryAnswerSchema);
export const annotationsAnswerSchema = listAnswerSchema(annotationAnswerSchema);

export const conversationSummarizeOutputSchema = z
  .looseObject({ conversation: ref, annotation: ref })
  .describe('The conversation and the SUMMARY annotation made for it.');

export const modelDeleteCacheOutputSchema = z.looseObject({ model: ref });

export const modelDownloadProgressSchema = z.looseObject({
  status: z.enum(['UNKNOWN', 'INITIALIZED', 'IN-PROGRESS', 'COMPLETED', 'FAILED', 'CANCELED']),
  percentage: z.number().nullable(),
  /** Why a FAILED download failed; an addition of this service, which the official client ignores. */
  reason: z.string().optional(),
});

/** Every refusal and failure: `{ "error": { code, message, ... } }`. */
export const errorAnswerSchema = z.object({
  error: z.looseObject({
    code: z.enum([
      'INVALID_INPUT',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'UNPROCESSABLE',
      'INSUFFICIENT_STORAGE',
      'INTERNAL',
    ]),
    message: z.string(),
    resource: z.string().optional(),
    id: z.string().optional(),
    issues: z.array(z.looseObject({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })).optional(),
    existingId: z.string().optional(),
    limit: z.number().optional(),
  }),
});

/**
 * The answer schemas by the name the OpenAPI document gives them (`#/components/schemas/<name>`).
 * A schema used inside another is referenced by this name rather than repeated.
 */
export const answerSchemas = {
  GroupedTimestamp: timestampAnswerSchema,
  Score: scoreSchema,
  FragmentFormat: fragmentAnswerSchema,
  FlattenedReferences: flatReferences,
  ConversationMessage: conversationMessageAnswerSchema,
  ConversationMessages: conversationMessagesAnswerSchema,
  Annotation: annotationAnswerSchema,
  Conversation: conversationAnswerSchema,
  Anchor: anchorAnswerSchema,
  Asset: assetAnswerSchema,
  Website: websiteAnswerSchema,
  WorkstreamSummary: workstreamSummaryAnswerSchema,
  Range: rangeAnswerSchema,
  Model: modelAnswerSchema,
  Conversations: conversationsAnswerSchema,
  Models: modelsAnswerSchema,
  Anchors: anchorsAnswerSchema,
  Assets: assetsAnswerSchema,
  Websites: websitesAnswerSchema,
  Ranges: rangesAnswerSchema,
  WorkstreamSummaries: workstreamSummariesAnswerSchema,
  Annotations: annotationsAnswerSchema,
  ConversationSummarizeOutput: conversationSummarizeOutputSchema,
  ModelDeleteCacheOutput: modelDeleteCacheOutputSchema,
  ModelDownloadProgress: modelDownloadProgressSchema,
  Error: errorAnswerSchema,
} as const satisfies Record<string, z.ZodType>;
