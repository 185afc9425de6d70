import { invalidInput, ServiceError } from '../errors.js';
import type { ReadView, SummarizerMessage } from '../ports.js';
import type { AnnotationRecord, ConversationRecord } from '../records.js';
import { link, RELATION } from '../relations.js';
import { conversationSnapshot, renderConversationInSlices } from '../render/conversation.js';
import { conversationSummarizeInputSchema } from '../schemas/conversation-inputs.js';
import { Slices } from '../slices.js';
import { parseInput } from '../validate.js';
import type { Conversation, ConversationSummarizeOutput } from '../wire.js';
import { mustGet, type OperationContext, parseId, type ReadOptions, renderOptions } from './context.js';
import { write } from './writers.js';

/** Names the conversation with the Summarizer's title for its messages; answers the conversation. */
export async function renameConversation(ctx: OperationContext, conversationId: string, options?: ReadOptions): Promise<Conversation> {
  const id = parseId(conversationId, 'conversation id');
  const render = renderOptions(options);
  // Reading a long conversation, writing its title and storing it are each long enough for a slice.
  const slices = new Slices();
  const { messages, model } = await ctx.repository.read(async (view) => {
    const conversation = await mustGet(view, 'conversations', id, 'conversation');
    return { messages: await textMessages(view, conversation.messages), model: conversation.model?.id };
  });
  if (messages.length === 0) throw nothingToSay(id, 'name');
  if (slices.due) await slices.next();
  const { text: name } = await write(ctx, 'title', messages, model);
  if (!name) throw nothingToSay(id, 'name');
  if (slices.due) await slices.next();
  const now = ctx.now();
  const conversation = await ctx.repository.transact(async (tx) => {
    const renamed: ConversationRecord = { ...(await mustGet(tx, 'conversations', id, 'conversation')), name, updated: now };
    tx.put('conversations', renamed);
    return renamed;
  });
  // Its messages are read after the write, not in it (see updateConversation).
  const snapshot = await ctx.repository.read((view) => conversationSnapshot(view, conversation));
  return renderConversationInSlices(snapshot, render);
}

/**
 * Summarizes the conversation and stores the text as a SUMMARY annotation linked to the
 * conversation, naming the messages it covers in its `messages`. Which messages: those named in
 * `input.messages`; without input, those no earlier summary covers (so summarizing again after new messages covers
 * what is new), or all of them when every message is already covered.
 */
export async function summarizeConversation(
  ctx: OperationContext,
  conversationId: string,
  input?: unknown,
): Promise<ConversationSummarizeOutput> {
  const id = parseId(conversationId, 'conversation id');
  const { messages: named } = parseInput(conversationSummarizeInputSchema.optional(), input, 'ConversationSummarizeInput') ?? {};
  // Reading a long conversation, summarizing it and storing the summary are each long enough for a slice.
  const slices = new Slices();
  const { messages, model } = await ctx.repository.read(async (view) => {
    const conversation = await mustGet(view, 'conversations', id, 'conversation');
    const model = conversation.model?.id;
    if (!named) return { messages: await notYetSummarized(view, conversation, await textMessages(view, conversation.messages)), model };
    const inConversation = new Set(conversation.messages);
    named.iterable.forEach(({ id: messageId }, index) => {
      if (!inConversation.has(messageId)) {
        throw invalidInput(`Message "${messageId}" is not a message of conversation "${id}".`, [
          { path: ['messages', 'iterable', index, 'id'], message: 'not a message of this conversation' },
        ]);
      }
    });
    const wanted = new Set(named.iterable.map((message) => message.id));
    // Only the messages named are read: one damaged elsewhere in the conversation does not stop this.
    return {
      messages: await textMessages(
        view,
        conversation.messages.filter((messageId) => wanted.has(messageId)),
      ),
      model,
    };
  });
  if (messages.length === 0) throw nothingToSay(id, 'summarize');
  if (slices.due) await slices.next();
  const { text, modelId } = await write(ctx, 'summary', messages, model);
  if (!text) throw nothingToSay(id, 'summarize');
  if (slices.due) await slices.next();
  // Frozen before the transaction, so that storing it does not copy a list of thousands of ids.
  const covered = Object.freeze(messages.map((message) => message.id));
  const now = ctx.now();
  const annotation: AnnotationRecord = {
    id: ctx.newId(),
    created: now,
    updated: now,
    type: 'SUMMARY',
    text,
    mechanism: 'AUTOMATIC',
    // Who actually wrote it: the conversation's model, the default one, or the embedded summarizer.
    model: { id: modelId },
    messages: [],
  };
  await ctx.repository.transact(async (tx) => {
    await mustGet(tx, 'conversations', id, 'conversation');
    // Messages deleted since they were read are not covered (a stamp is cheap: no record is read).
    const stamps = await tx.versions('messages', covered);
    const present = stamps.every((stamp) => stamp !== undefined);
    tx.put('annotations', { ...annotation, messages: present ? covered : covered.filter((_, i) => stamps[i] !== undefined) });
    await link(tx, RELATION.conversationAnnotations, id, annotation.id, now);
  });
  return { conversation: { id }, annotation: { id: annotation.id } };
}

/** The messages no SUMMARY annotation of the conversation covers yet; all of them if none is left. */
async function notYetSummarized(
  view: ReadView,
  conversation: ConversationRecord,
  messages: SummarizerMessage[],
): Promise<SummarizerMessage[]> {
  const covered = new Set<string>();
  for (const annotation of await view.getMany('annotations', conversation.annotations)) {
    if (annotation?.type === 'SUMMARY') for (const messageId of annotation.messages) covered.add(messageId);
  }
  const fresh = messages.filter((message) => !covered.has(message.id));
  return fresh.length > 0 ? fresh : messages;
}

/**
 * The messages `ids` that have text, as the Summarizer sees them. A title or a summary is written
 * from the whole of what it covers: a message damaged on disk is not left out of it silently, its
 * DATA_DAMAGED is the answer (summarizing named messages reads only those).
 */
async function textMessages(view: ReadView, ids: readonly string[]): Promise<SummarizerMessage[]> {
  const messages: SummarizerMessage[] = [];
  for (const message of await view.getMany('messages', ids)) {
    const text = message?.fragment?.string?.raw?.trim();
    if (message && text) messages.push({ id: message.id, role: message.role, text });
  }
  return messages;
}

const nothingToSay = (id: string, verb: 'name' | 'summarize'): ServiceError =>
  new ServiceError('UNPROCESSABLE', `Conversation "${id}" has no message text to ${verb}.`, {
    resource: 'conversation',
    id,
  });
