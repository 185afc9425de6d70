import type { ReadView } from '../ports.js';
import type { MessageRecord } from '../records.js';
import { covers } from '../relations.js';
import { renderMessage } from '../render/conversation.js';
import type { RenderOptions } from '../render/lists.js';
import { messageUpdateSchema, messageValueUpdateSchema } from '../schemas/message-inputs.js';
import { parseInput } from '../validate.js';
import type { ConversationMessage, ConversationMessages } from '../wire.js';
import { type ListOptions, mustGet, type OperationContext, pageOptions, parseId, type ReadOptions, renderOptions } from './context.js';
import { withChanges } from './field-changes.js';

/**
 * One message, as its conversation's listing shows it (with the summaries that cover it): what a
 * stream reader fetches for each id it is sent. NOT_FOUND for an unknown id.
 */
export async function getMessage(ctx: OperationContext, messageId: string, options?: ReadOptions): Promise<ConversationMessage> {
  const id = parseId(messageId, 'message id');
  const render = renderOptions(options);
  return ctx.repository.read(async (view) => {
    const message = await mustGet(view, 'messages', id, 'message');
    return (await renderWithCoverage(view, [message], render))[0]!;
  });
}

/**
 * The messages of every conversation, oldest first, a page at a time (see {@link ListOptions});
 * `indices` gives each message's position in this list.
 */
export async function listMessages(ctx: OperationContext, options?: ListOptions): Promise<ConversationMessages> {
  const page = pageOptions(options);
  return ctx.repository.read(async (view) => {
    const { records, next } = await view.list('messages', { offset: page.offset, limit: page.limit });
    const iterable = await renderWithCoverage(view, records, page);
    const indices = Object.fromEntries(iterable.map((message, i) => [message.id, page.offset + i]));
    return next === undefined ? { iterable, indices } : { iterable, indices, next: page.offset + iterable.length };
  });
}

/**
 * Applies the mutable fields of a ConversationMessage body (`fragment`, `role`, `sentiment`,
 * `model`, `deleted`; `null` clears one) and bumps `updated`. The message's new text is searched
 * from then on (the index follows the write), and cached answers of its conversation are no longer
 * served (their stamps include the message's). Its conversation is not rewritten.
 */
export async function updateMessage(ctx: OperationContext, body: unknown, options?: ReadOptions): Promise<ConversationMessage> {
  const { id, ...changes } = parseInput(messageUpdateSchema, body, 'ConversationMessage');
  return writeMessage(ctx, id, changes, options);
}

/**
 * Sets a message's value, its `fragment` (how a reply streamed from a model grows, or a prompt is
 * edited before it is sent again), and bumps `updated`; as {@link updateMessage} otherwise.
 */
export async function updateMessageValue(ctx: OperationContext, body: unknown, options?: ReadOptions): Promise<ConversationMessage> {
  const { id, fragment } = parseInput(messageValueUpdateSchema, body, 'ConversationMessage');
  return writeMessage(ctx, id, { fragment }, options);
}

/** Writes `changes` on message `id` in one transaction (`null` removes a field) and answers it rendered. */
async function writeMessage(
  ctx: OperationContext,
  id: string,
  changes: Readonly<Record<string, unknown>>,
  options: ReadOptions | undefined,
): Promise<ConversationMessage> {
  const render = renderOptions(options);
  const now = ctx.now();
  const message = await ctx.repository.transact(async (tx) => {
    const current = await mustGet(tx, 'messages', id, 'message');
    const updated = withChanges(current, changes, now);
    tx.put('messages', updated);
    return updated;
  });
  // The covering summaries are read after the write: the transaction need not hold them.
  return ctx.repository.read(async (view) => (await renderWithCoverage(view, [message], render))[0]!);
}

/**
 * The messages rendered as a conversation's listing renders them: each with the annotations of its
 * conversation that cover it. Each conversation and its annotations are read once for the lot.
 */
async function renderWithCoverage(
  view: ReadView,
  messages: readonly MessageRecord[],
  render: RenderOptions,
): Promise<ConversationMessage[]> {
  const conversationIds = [...new Set(messages.map((message) => message.conversation))];
  const conversations = await view.getMany('conversations', conversationIds);
  const annotationIds = conversations.flatMap((conversation) => conversation?.annotations ?? []);
  const annotations = new Map((await view.getMany('annotations', annotationIds)).flatMap((a) => (a ? [[a.id, a] as const] : [])));
  const annotationsOf = new Map(conversationIds.map((id, i) => [id, conversations[i]?.annotations ?? []]));
  return messages.map((message) => {
    const covering = (annotationsOf.get(message.conversation) ?? []).filter((a) => covers(annotations.get(a), message.id));
    return renderMessage(message, render, covering);
  });
}
