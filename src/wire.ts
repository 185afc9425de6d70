import type { z } from 'zod';
import type * as answers from './schemas/answers.js';

/**
 * The records as the service answers them: the wire shapes of the Pieces OS API that its official
 * client parses. Each type is the output of its answer schema (`src/schemas/answers.ts`), which
 * the OpenAPI document is generated from too, so the two cannot drift. Links are list wrappers;
 * an item's `reference` (when present) is the linked record.
 */

/** A list item `{ id }`; `reference`, when present, is the linked record. */
export type Reference<T = never> = z.output<ReturnType<typeof answers.referenceAnswerSchema<z.ZodType<T>>>>;

/** A list wrapper ("Flattened…" in the client). `iterable` is always present; `indices` where order matters. */
export type ReferenceList<T = never> = z.output<ReturnType<typeof answers.referenceListAnswerSchema<z.ZodType<Reference<T>>>>>;

/** A message; without `fragment.string` when transferables are left out. */
export type ConversationMessage = z.output<typeof answers.conversationMessageAnswerSchema>;

/** A page of a conversation's messages: `indices` are positions in the whole conversation, `next` the offset of the next page. */
export type ConversationMessages = z.output<typeof answers.conversationMessagesAnswerSchema>;

export type Annotation = z.output<typeof answers.annotationAnswerSchema>;

export type Conversation = z.output<typeof answers.conversationAnswerSchema>;

export type AnchorPoint = z.output<typeof answers.anchorPointAnswerSchema>;

export type Anchor = z.output<typeof answers.anchorAnswerSchema>;

/** An asset's format; without `fragment.string` when transferables are left out. */
export type Format = z.output<typeof answers.formatAnswerSchema>;

export type Asset = z.output<typeof answers.assetAnswerSchema>;

export type Website = z.output<typeof answers.websiteAnswerSchema>;

export type WorkstreamSummary = z.output<typeof answers.workstreamSummaryAnswerSchema>;

export type Range = z.output<typeof answers.rangeAnswerSchema>;

export type Tag = z.output<typeof answers.tagAnswerSchema>;

export type Person = z.output<typeof answers.personAnswerSchema>;

export type WorkstreamEvent = z.output<typeof answers.workstreamEventAnswerSchema>;

/** The client's IdentifiedWorkstreamPatternEngineSource. */
export type WorkstreamPatternEngineSource = z.output<typeof answers.workstreamPatternEngineSourceAnswerSchema>;

/** A failure the service keeps for a model: why, and when (ISO 8601). */
export type ModelFailure = z.output<typeof answers.modelFailureAnswerSchema>;

/**
 * A model as answered: the record with its live state. Besides the API's fields, two the official
 * client ignores: `loadFailure`, while the model is marked failed to load (it is not loaded again
 * until its files change or it is loaded explicitly), and `downloadFailure`, the reason its last
 * download failed.
 */
export type Model = z.output<typeof answers.modelAnswerSchema>;

/** A snapshot of a collection, or one page of it: `{ iterable: [...] }`, and `next`, the `offset` of the next page, when there is more. */
export type ListOf<T> = z.output<ReturnType<typeof answers.listAnswerSchema<z.ZodType<T>>>>;

export type ConversationSummarizeOutput = z.output<typeof answers.conversationSummarizeOutputSchema>;

export type ModelDeleteCacheOutput = z.output<typeof answers.modelDeleteCacheOutputSchema>;

/** Where a model's download stands; `reason` (FAILED), `bytesReceived` and `bytesTotal` (IN-PROGRESS, COMPLETED) are this service's additions. */
export type ModelDownloadProgress = z.output<typeof answers.modelDownloadProgressSchema>;

/** A message a search found: its id (`identifier`), how well it matched, the message unless transferables are off. */
export type SearchedConversationMessage = z.output<typeof answers.searchedConversationMessageSchema>;
/** What `searchMessages` and `searchConversationMessages` answer. */
export type SearchedConversationMessages = z.output<typeof answers.searchedConversationMessagesSchema>;
export type SearchedAnnotation = z.output<typeof answers.searchedAnnotationSchema>;
/** What `searchAnnotations` answers. */
export type SearchedAnnotations = z.output<typeof answers.searchedAnnotationsSchema>;
/** Every conversation's id: what `listConversationIdentifiers` answers. */
export type FlattenedConversations = z.output<typeof answers.flattenedConversationsSchema>;
/** The conversation a create from an asset or a workstream summary made. */
export type ConversationCreatedOutput = z.output<typeof answers.conversationCreatedOutputSchema>;
/** A conversation a search found, with its best matching messages and annotations. */
export type SearchedConversation = z.output<typeof answers.searchedConversationSchema>;
/** What `searchConversations` answers. */
export type SearchedConversations = z.output<typeof answers.searchedConversationsSchema>;
/** A deleted conversation the trash keeps: its id and name, when it was deleted, when it expires, its number of messages. */
export type TrashedConversation = z.output<typeof answers.trashedConversationSchema>;
/** What `listTrash` answers: the most recently deleted first. */
export type TrashedConversations = z.output<typeof answers.trashedConversationsSchema>;
/** What `emptyTrash` and `purgeExpiredTrash` answer. */
export type TrashEmptied = z.output<typeof answers.trashEmptiedSchema>;
