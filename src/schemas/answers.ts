import { z } from 'zod';
import { anchorTypeSchema, annotationTypeSchema, conversationTypeSchema, messageRoleSchema } from './common.js';

/**
 * The answers' shapes, described once: the OpenAPI document says each route returns these, and the
 * TypeScript types of the answers (`src/wire.ts`) are their outputs. They describe, they do not
 * check: the service builds its answers itself.
 *
 * Objects are `z.object`, so a type lists exactly the fields the service sets (no index signature
 * that would let a misspelled field through). The document still says an answer may carry more
 * fields than listed (`additionalProperties: {}`, see {@link openAnswerObjects}), as the API's
 * newer releases do, and clients ignore what they do not know. `z.strictObject` is closed in both.
 */

const free = z.record(z.string(), z.unknown());
const ref = z.object({ id: z.string() });

export const timestampAnswerSchema = z.object({
  value: z.string().describe('ISO 8601 date and time'),
  readable: z.string().optional(),
});

const scoreSchema = z.object({
  manual: z.number(),
  automatic: z.number(),
  priority: z.number().optional(),
  reuse: z.number().optional(),
  update: z.number().optional(),
  reference: z.number().optional(),
  searched: z.number().optional(),
});

const fragmentAnswerSchema = z
  .object({
    string: z
      .object({
        raw: z.string().optional(),
        base64: z.string().optional(),
        base64_url: z.string().optional(),
        data_url: z.string().optional(),
      })
      .optional(),
    metadata: free.optional(),
  })
  .describe('Without `string` when transferables=false.');

/** An item of a list wrapper: `{ id }`, with the linked record as `reference` where the answer embeds it. */
export const referenceAnswerSchema = <T extends z.ZodType>(linked: T) => z.object({ id: z.string(), reference: linked.optional() });

/** A list wrapper (`Flattened…` in the client); `iterable` is always present. */
export const referenceListAnswerSchema = <T extends z.ZodType>(item: T) =>
  z.object({ iterable: z.array(item), indices: z.record(z.string(), z.number()).optional() });

const flatReferences = referenceListAnswerSchema(ref).describe('A list wrapper of `{ id }` references.');

const common = { id: z.string(), created: timestampAnswerSchema, updated: timestampAnswerSchema };

/** Lists of linked records a record answers only once it has some (see src/links.ts), by wire name. */
const linkLists = <const K extends string>(...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, flatReferences.optional()])) as { [N in K]: z.ZodOptional<typeof flatReferences> };

/** A record an answer left out because it is damaged on disk: the error a read of it answers. */
export const skippedRecordAnswerSchema = z.object({
  code: z.literal('DATA_DAMAGED'),
  message: z.string(),
  resource: z.string().describe('The kind of record, e.g. `message`.'),
  id: z.string(),
  file: z.string().describe("The damaged file's name, in the store's folder."),
  offset: z.number().int().describe('Where in `file` the damage was found, in bytes.'),
});

/** `skipped` of an answer that can leave damaged records out. */
const skipped = z
  .array(skippedRecordAnswerSchema)
  .optional()
  .describe(
    'Set when records were left out because they are damaged on disk (an addition of this service; see DATA_DAMAGED): the rest is answered.',
  );

export const conversationMessageAnswerSchema = z.object({
  ...common,
  conversation: ref,
  role: messageRoleSchema,
  fragment: fragmentAnswerSchema.optional(),
  sentiment: z.string().optional(),
  model: free.optional(),
  score: scoreSchema.optional(),
  deleted: timestampAnswerSchema.optional(),
  annotations: flatReferences.optional(),
  ...linkLists('messages', 'anchors', 'assets', 'persons', 'ranges', 'tags', 'websites', 'workstream_events', 'sources', 'summaries'),
});

export const conversationMessagesAnswerSchema = z.object({
  iterable: z.array(conversationMessageAnswerSchema),
  indices: z.record(z.string(), z.number()).describe("Each message's position in the whole conversation."),
  next: z.number().int().optional().describe('When there is more: the `offset` of the next page.'),
  skipped,
});

export const annotationAnswerSchema = z.object({
  ...common,
  type: annotationTypeSchema,
  text: z.string(),
  mechanism: z.string().optional(),
  favorited: z.boolean().optional(),
  model: ref.optional(),
  conversation: ref.optional(),
  score: scoreSchema.optional(),
  messages: flatReferences.optional(),
  ...linkLists('anchors', 'assets', 'persons', 'tags', 'websites', 'workstream_events', 'summaries'),
});

export const conversationAnswerSchema = z.object({
  ...common,
  type: conversationTypeSchema,
  name: z.string().optional(),
  favorited: z.boolean().optional(),
  deleted: timestampAnswerSchema.optional(),
  model: ref.optional(),
  score: scoreSchema.optional(),
  application: free.optional(),
  pipeline: free.optional(),
  demo: z.boolean().optional(),
  messages: z.object({
    iterable: z.array(referenceAnswerSchema(conversationMessageAnswerSchema)),
    indices: z.record(z.string(), z.number()),
  }),
  annotations: referenceListAnswerSchema(referenceAnswerSchema(annotationAnswerSchema)),
  anchors: flatReferences,
  assets: flatReferences,
  websites: flatReferences,
  summaries: flatReferences,
  grounding: z.object({
    messages: flatReferences,
    temporal: z.object({ workstreams: flatReferences }),
    sources: flatReferences.optional(),
  }),
  skipped,
});

/** Where an anchor points: its one path. */
export const anchorPointAnswerSchema = z.object({
  ...common,
  fullpath: z.string(),
  platform: z.string().optional(),
  anchor: ref,
});

export const anchorAnswerSchema = z.object({
  ...common,
  type: anchorTypeSchema,
  name: z.string().optional(),
  watch: z.boolean().optional(),
  points: referenceListAnswerSchema(referenceAnswerSchema(anchorPointAnswerSchema)),
  conversations: flatReferences,
  ...linkLists('messages', 'annotations'),
});

/** An asset's one format: its content as a fragment. */
export const formatAnswerSchema = z.object({
  id: z.string(),
  creator: z.string(),
  created: timestampAnswerSchema,
  updated: timestampAnswerSchema,
  classification: free,
  role: z.literal('BOTH'),
  application: free,
  asset: ref,
  bytes: z.object({ value: z.number() }),
  fragment: fragmentAnswerSchema.optional(),
});

export const assetAnswerSchema = z.object({
  ...common,
  name: z.string().optional(),
  creator: z.string(),
  mechanism: z.string(),
  formats: z.object({ iterable: z.array(formatAnswerSchema) }),
  preview: z.object({ base: ref }),
  original: ref,
  conversations: flatReferences,
  ...linkLists('messages', 'annotations'),
});

export const websiteAnswerSchema = z.object({
  ...common,
  url: z.string(),
  name: z.string(),
  conversations: flatReferences,
  ...linkLists('messages', 'annotations'),
});

export const workstreamSummaryAnswerSchema = z.object({
  ...common,
  name: z.string(),
  model: free,
  favorited: z.boolean().optional(),
  conversations: flatReferences,
  ...linkLists('messages', 'annotations'),
});

export const rangeAnswerSchema = z.object({
  ...common,
  from: timestampAnswerSchema.optional(),
  to: timestampAnswerSchema.optional(),
  between: z.boolean().optional(),
  conversations: flatReferences,
  ...linkLists('messages'),
});

export const tagAnswerSchema = z.object({
  ...common,
  text: z.string(),
  category: z.string(),
  mechanism: z.string().optional(),
  ...linkLists('messages', 'annotations'),
});

export const personAnswerSchema = z.object({
  ...common,
  type: free.describe("The client's PersonType: `basic` or `platform` details, as given."),
  mechanism: z.string().optional(),
  ...linkLists('messages', 'annotations'),
});

export const workstreamEventAnswerSchema = z.object({
  ...common,
  application: free,
  trigger: free,
  context: free.optional(),
  readable: z.string().optional(),
  ...linkLists('messages', 'annotations'),
});

/** The client's IdentifiedWorkstreamPatternEngineSource. */
export const workstreamPatternEngineSourceAnswerSchema = z.object({
  ...common,
  raw: free,
  readable: z.string(),
  filter: z.boolean().optional(),
  ...linkLists('messages', 'conversations'),
});

const byteDescriptor = z.object({ value: z.number(), readable: z.string() });

/** A failure the service keeps for a model: why, and when. */
export const modelFailureAnswerSchema = z.strictObject({ reason: z.string(), at: z.string().describe('ISO 8601') });

/**
 * A model as answered: the record with its live state. Besides the API's fields, two the official
 * client ignores: `loadFailure` and `downloadFailure`.
 */
export const modelAnswerSchema = z.object({
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
  score: scoreSchema.optional().describe('Kept for custom models (see scores/increment).'),
  loadFailure: modelFailureAnswerSchema
    .optional()
    .describe('Set while the model is marked failed to load: it is not loaded again until its files change or it is loaded explicitly.'),
  downloadFailure: modelFailureAnswerSchema.optional().describe("Why the model's last download failed."),
});

/** A snapshot of a collection, or one page of it (`next` when there is more). */
export const listAnswerSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    iterable: z.array(item),
    next: z.number().int().optional().describe('When the list goes on: the `offset` of the next page (also in the `Link` header).'),
  });

// The answers of the three search routes: the API's Searched… shapes, with `next` (the offset of
// the next page) and each hit's `snippet`, additions the official client ignores.
const searchedFields = {
  exact: z.boolean().describe('Whether the record holds the query verbatim (letter case aside).'),
  similarity: z.number().describe('How well it matches, 0–1: the share of the best score a record could have for this query.'),
  temporal: z.boolean().optional().describe('Set when a `temporal` engine kept it.'),
  identifier: z.string(),
};
const snippet = z.string().optional().describe('The part of its text around the first match (an addition of this service).');

export const searchedConversationMessageSchema = z.object({
  message: conversationMessageAnswerSchema.optional(),
  ...searchedFields,
  snippet,
});
export const searchedConversationMessagesSchema = z.object({
  iterable: z.array(searchedConversationMessageSchema),
  next: z.number().int().optional().describe('When there are more results: the `offset` of the next page.'),
  skipped,
});
export const searchedAnnotationSchema = z.object({ annotation: annotationAnswerSchema.optional(), ...searchedFields, snippet });
export const searchedAnnotationsSchema = z.object({
  iterable: z.array(searchedAnnotationSchema),
  next: z.number().int().optional().describe('When there are more results: the `offset` of the next page.'),
});
export const searchedConversationSchema = z.object({
  conversation: conversationAnswerSchema.optional(),
  messages: searchedConversationMessagesSchema.optional(),
  annotations: z.object({ iterable: z.array(searchedAnnotationSchema) }).optional(),
  ...searchedFields,
});
export const searchedConversationsSchema = z.object({
  iterable: z.array(searchedConversationSchema),
  next: z.number().int().optional().describe('When there are more results: the `offset` of the next page.'),
  skipped,
});

export const conversationsAnswerSchema = listAnswerSchema(conversationAnswerSchema);
export const modelsAnswerSchema = listAnswerSchema(modelAnswerSchema);
export const anchorsAnswerSchema = listAnswerSchema(anchorAnswerSchema);
export const assetsAnswerSchema = listAnswerSchema(assetAnswerSchema);
export const websitesAnswerSchema = listAnswerSchema(websiteAnswerSchema);
export const rangesAnswerSchema = listAnswerSchema(rangeAnswerSchema);
export const workstreamSummariesAnswerSchema = listAnswerSchema(workstreamSummaryAnswerSchema);
export const annotationsAnswerSchema = listAnswerSchema(annotationAnswerSchema);
export const tagsAnswerSchema = listAnswerSchema(tagAnswerSchema);
export const personsAnswerSchema = listAnswerSchema(personAnswerSchema);
export const workstreamEventsAnswerSchema = listAnswerSchema(workstreamEventAnswerSchema);
export const workstreamPatternEngineSourcesAnswerSchema = listAnswerSchema(workstreamPatternEngineSourceAnswerSchema);

export const conversationSummarizeOutputSchema = z
  .object({ conversation: ref, annotation: ref })
  .describe('The conversation and the SUMMARY annotation made for it.');

/** What `GET /conversations/identifiers` answers: every conversation's id, oldest first. */
export const flattenedConversationsSchema = z.object({ iterable: z.array(z.object({ id: z.string() })) });

export const conversationCreatedOutputSchema = z
  .object({ conversation: ref })
  .describe('The conversation made (ConversationsCreateFromAssetOutput, ConversationsCreateFromWorkstreamSummaryOutput).');

export const modelDeleteCacheOutputSchema = z.object({ model: ref });

export const trashedConversationSchema = z
  .object({
    id: z.string().describe("The conversation's id: what restores it."),
    name: z.string().optional(),
    deleted: timestampAnswerSchema.describe('When it was deleted.'),
    expires: timestampAnswerSchema.describe('When the trash lets it go for good.'),
    messages: z.number().int().describe('How many messages it holds.'),
  })
  .describe("A deleted conversation the trash keeps (this service's own: the official client has no trash).");

export const trashedConversationsSchema = z
  .object({ iterable: z.array(trashedConversationSchema) })
  .describe('Every conversation in the trash, the most recently deleted first.');

export const trashEmptiedSchema = z.object({ removed: z.number().int().describe('How many conversations went for good.') });

/** What `POST /backup` wrote: an addition of this service (the official client has no backup). */
export const backupAnswerSchema = z
  .object({
    /** The backup folder's name, in the data folder's `backups/`. */
    name: z.string(),
    /** The backup folder, as an absolute path on the server's machine (what `backup --out` moves). */
    folder: z.string(),
    files: z.number(),
    bytes: z.number(),
  })
  .describe("A backup of the store, in the data folder's backups/ (docs/backup-and-restore.md).");

export const modelDownloadProgressSchema = z.object({
  status: z.enum(['UNKNOWN', 'INITIALIZED', 'IN-PROGRESS', 'COMPLETED', 'FAILED', 'CANCELED']),
  percentage: z.number().nullable(),
  /** Why a FAILED download failed; an addition of this service, which the official client ignores. */
  reason: z.string().optional(),
  /**
   * Additions of this service likewise, set while IN-PROGRESS (what `models pull` shows bytes, speed
   * and time left from) and once COMPLETED (the finished file's size, both alike).
   */
  bytesReceived: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('The bytes of the file received so far (IN-PROGRESS); its whole size once COMPLETED.'),
  bytesTotal: z.number().int().nonnegative().optional().describe("The file's whole size in bytes (IN-PROGRESS, when known; COMPLETED)."),
});

/** Every refusal and failure: `{ "error": { code, message, ... } }`. */
export const errorAnswerSchema = z.strictObject({
  error: z.object({
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
      'DATA_DAMAGED',
      'STORE_TOO_NEW',
      'STORE_UNAVAILABLE',
      'TOO_SLOW',
      'NOT_SUPPORTED',
      'INTERNAL',
    ]),
    message: z.string(),
    resource: z.string().optional(),
    id: z.string().optional(),
    issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })).optional(),
    existingId: z.string().optional(),
    limit: z.number().optional(),
    /** A search over its work budget: which one (`postings`, `recordChars`). */
    budget: z.string().optional(),
    file: z.string().optional(),
    offset: z.number().optional(),
    damaged: z
      .array(z.object({ resource: z.string(), id: z.string(), file: z.string(), offset: z.number(), message: z.string() }))
      .optional(),
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
  Tag: tagAnswerSchema,
  Tags: tagsAnswerSchema,
  Person: personAnswerSchema,
  Persons: personsAnswerSchema,
  WorkstreamEvent: workstreamEventAnswerSchema,
  WorkstreamEvents: workstreamEventsAnswerSchema,
  WorkstreamPatternEngineSource: workstreamPatternEngineSourceAnswerSchema,
  WorkstreamPatternEngineSources: workstreamPatternEngineSourcesAnswerSchema,
  ConversationSummarizeOutput: conversationSummarizeOutputSchema,
  FlattenedConversations: flattenedConversationsSchema,
  ConversationCreatedOutput: conversationCreatedOutputSchema,
  ModelDeleteCacheOutput: modelDeleteCacheOutputSchema,
  ModelDownloadProgress: modelDownloadProgressSchema,
  TrashedConversation: trashedConversationSchema,
  TrashedConversations: trashedConversationsSchema,
  TrashEmptied: trashEmptiedSchema,
  Backup: backupAnswerSchema,
  SearchedConversationMessage: searchedConversationMessageSchema,
  SearchedConversationMessages: searchedConversationMessagesSchema,
  SearchedAnnotation: searchedAnnotationSchema,
  SearchedAnnotations: searchedAnnotationsSchema,
  SearchedConversation: searchedConversationSchema,
  SearchedConversations: searchedConversationsSchema,
  SkippedRecord: skippedRecordAnswerSchema,
  Error: errorAnswerSchema,
} as const satisfies Record<string, z.ZodType>;

type JsonSchemaOverride = NonNullable<NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override']>;

/**
 * The `override` of `z.toJSONSchema` for the answers: a `z.object` (no catchall) is written open,
 * `additionalProperties: {}`, where zod writes output objects closed. Its TypeScript type stays
 * exact; what the document promises is only that the listed fields are there.
 */
export const openAnswerObjects: JsonSchemaOverride = ({ zodSchema, jsonSchema }) => {
  const def = zodSchema._zod.def;
  if (def.type === 'object' && def.catchall === undefined && jsonSchema.additionalProperties === false) {
    jsonSchema.additionalProperties = {};
  }
};
