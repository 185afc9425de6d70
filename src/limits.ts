/**
 * The most the service accepts, so that no request can hold the event loop or the memory for long.
 * Over HTTP the body size is capped too (`maxBodyBytes` of the router, 10 MiB by default).
 */
export const LIMITS = {
  /** Messages a conversation can be created with. Over it: PAYLOAD_TOO_LARGE. */
  messagesPerCreate: 20_000,
  /** Messages one conversation holds, however they came. Appending past it: UNPROCESSABLE. */
  messagesPerConversation: 20_000,
  /** Characters of one text: a message, an annotation, an asset's content. */
  textChars: 1_000_000,
  /** Items of any other list in an input (anchors, annotations, message references). */
  listItems: 10_000,
  /** Nesting of free-form JSON fields (`application`, `pipeline`, `metadata`, …). Deeper: INVALID_INPUT. */
  jsonDepth: 32,
  /** Items in one page of a list; also the default page size. */
  pageSize: 1_000,
  /** Validation issues reported in one error; the message says how many there were. */
  reportedIssues: 5,
} as const;
