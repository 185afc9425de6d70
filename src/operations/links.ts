import { invalidInput, ServiceError } from '../errors.js';
import { KINDS } from '../kinds/index.js';
import { LINK, LINK_KINDS, type LinkableName, type LinkKind } from '../links.js';
import type { Transaction } from '../ports.js';
import type { AnnotationRecord, MessageRecord, Timestamp } from '../records.js';
import { link, type Relation, unlink } from '../relations.js';
import { mustGet, type OperationContext, parseId } from './context.js';

/** A link by its name in LINK, or a conversation's link by its older short name (`anchor`). */
export type LinkSelector = LinkableName | LinkKind;

/**
 * Links the record `aId` (side a of the link) to the record `bId` (side b), updating both (and
 * their `updated`). Linking what is already linked changes nothing. Both records must exist.
 */
export async function associate(ctx: OperationContext, name: LinkSelector, aId: string, bId: string): Promise<void> {
  await setLink(ctx, name, aId, bId, true);
}

/** Unlinks two records, updating both. Unlinking twice is harmless. */
export async function disassociate(ctx: OperationContext, name: LinkSelector, aId: string, bId: string): Promise<void> {
  await setLink(ctx, name, aId, bId, false);
}

const LINKABLE = new Set<string>(Object.keys(LINK).filter((name) => !(LINK[name as keyof typeof LINK] as Relation).fixed));

/** The link `name` selects, or INVALID_INPUT. */
function linkNamed(name: LinkSelector): { readonly name: LinkableName; readonly relation: Relation } {
  if (Object.hasOwn(LINK_KINDS, name)) return { name: LINK_KINDS[name as LinkKind].link, relation: LINK_KINDS[name as LinkKind].relation };
  if (LINKABLE.has(name)) return { name: name as LinkableName, relation: LINK[name as LinkableName] };
  throw invalidInput(`Unknown link "${String(name)}"; one of: ${[...Object.keys(LINK_KINDS), ...LINKABLE].join(', ')}.`);
}

async function setLink(ctx: OperationContext, selector: LinkSelector, aIdText: string, bIdText: string, linked: boolean): Promise<void> {
  const { relation } = linkNamed(selector);
  const a = KINDS[relation.a.collection];
  const b = KINDS[relation.b.collection];
  const aId = parseId(aIdText, `${a.resource} id`);
  const bId = parseId(bIdText, `${b.resource} id`);
  if (relation.a.collection === relation.b.collection && aId === bId) {
    throw invalidInput(`A ${a.resource} cannot be linked to itself.`);
  }
  const now = ctx.now();
  await ctx.repository.transact(async (tx) => {
    await mustGet(tx, relation.a.collection, aId, a.resource);
    await mustGet(tx, relation.b.collection, bId, b.resource);
    if (relation.coverage) await setCoverage(tx, aId, bId, linked, now);
    else if (relation === LINK.conversationAnnotations) await setAnnotationConversation(tx, aId, bId, linked, now);
    else await (linked ? link : unlink)(tx, relation, aId, bId, now);
  });
}

/**
 * A message's annotations are the summaries of its conversation that cover it (src/links.ts,
 * `coverage`): linking one adds the message to the annotation's coverage. An annotation of no
 * conversation joins the message's; one of another conversation is refused, since the message
 * would never show it (and deleting the message would not find it).
 */
async function setCoverage(tx: Transaction, messageId: string, annotationId: string, linked: boolean, now: Timestamp): Promise<void> {
  const message = (await tx.get('messages', messageId)) as MessageRecord;
  let annotation = (await tx.get('annotations', annotationId)) as AnnotationRecord;
  const covered = annotation.messages.includes(messageId);
  if (!linked) {
    if (covered) tx.put('annotations', { ...annotation, messages: annotation.messages.filter((id) => id !== messageId), updated: now });
    return;
  }
  if (annotation.conversation === undefined) {
    await link(tx, LINK.conversationAnnotations, message.conversation, annotationId, now);
    annotation = (await tx.get('annotations', annotationId)) as AnnotationRecord;
  } else if (annotation.conversation !== message.conversation) {
    throw new ServiceError(
      'UNPROCESSABLE',
      `Annotation "${annotationId}" belongs to conversation "${annotation.conversation}", and message "${messageId}" to "${message.conversation}": a message's annotations are its conversation's.`,
      { resource: 'annotation', id: annotationId },
    );
  }
  if (!covered) tx.put('annotations', { ...annotation, messages: [...annotation.messages, messageId], updated: now });
}

/**
 * An annotation joins a conversation (leaving the one it belonged to) or leaves it. The messages it
 * covered were that conversation's: its coverage is cleared when its conversation changes.
 */
async function setAnnotationConversation(tx: Transaction, conversationId: string, annotationId: string, linked: boolean, now: Timestamp) {
  const before = ((await tx.get('annotations', annotationId)) as AnnotationRecord).conversation;
  await (linked ? link : unlink)(tx, LINK.conversationAnnotations, conversationId, annotationId, now);
  const after = (await tx.get('annotations', annotationId)) as AnnotationRecord;
  if (after.conversation !== before && after.messages.length > 0) tx.put('annotations', { ...after, messages: [], updated: now });
}
