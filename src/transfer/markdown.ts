import type { Repository } from '../ports.js';
import type { AnnotationRecord, ConversationRecord, MessageRecord } from '../records.js';
import { selectRecords } from './selection.js';

const ROLES: Readonly<Record<string, string>> = { USER: 'User', ASSISTANT: 'Assistant', SYSTEM: 'System', UNKNOWN: 'Unknown' };

/**
 * The Markdown export: every conversation (or those named), one after another, each a document of
 * its own a person reads (see {@link conversationMarkdown}), read a page of conversations at a time.
 */
export async function* exportMarkdown(repository: Repository, conversations: readonly string[] | undefined): AsyncGenerator<string> {
  if (conversations) {
    // Checked before the first chunk (NOT_FOUND for an unknown one).
    await repository.read((view) => selectRecords(view, conversations.slice(0, 1)));
    let first = true;
    for (const id of new Set(conversations)) {
      const text = await repository.read(async (view) => {
        const conversation = await view.get('conversations', id);
        return conversation
          ? conversationMarkdown(
              conversation,
              await view.getMany('messages', conversation.messages),
              await view.getMany('annotations', conversation.annotations),
            )
          : '';
      });
      if (!text) continue;
      yield first ? text : `\n${text}`;
      first = false;
    }
    return;
  }
  let after: string | undefined;
  let first = true;
  do {
    const page = await repository.read((view) => view.list('conversations', { ...(after === undefined ? {} : { after }), limit: 20 }));
    for (const conversation of page.records) {
      const text = await repository.read(async (view) =>
        conversationMarkdown(
          conversation,
          await view.getMany('messages', conversation.messages),
          await view.getMany('annotations', conversation.annotations),
        ),
      );
      yield first ? text : `\n${text}`;
      first = false;
    }
    after = page.next;
  } while (after !== undefined);
}

/**
 * One conversation as Markdown: its title as the heading, its dates, its summary (its SUMMARY
 * annotations), then each message under a heading with its role and time. A message's text is
 * written as it is, Markdown already (its code blocks stay as they are); a code block it opens
 * and never closes is closed after it, so it cannot swallow the messages that follow.
 */
export function conversationMarkdown(
  conversation: ConversationRecord,
  messages: readonly (MessageRecord | undefined)[],
  annotations: readonly (AnnotationRecord | undefined)[],
): string {
  const lines: string[] = [`# ${oneLine(conversation.name) || 'Untitled conversation'}`, ''];
  lines.push(`- Created: ${conversation.created.value}`, `- Updated: ${conversation.updated.value}`, `- Id: \`${conversation.id}\``, '');
  const summaries = annotations.filter((annotation): annotation is AnnotationRecord => annotation?.type === 'SUMMARY');
  if (summaries.length > 0) {
    lines.push('## Summary', '');
    for (const summary of summaries) lines.push(closedFences(summary.text), '');
  }
  lines.push('## Messages', '');
  for (const message of messages) {
    if (!message || message.deleted) continue;
    lines.push(`### ${ROLES[message.role] ?? oneLine(message.role)} · ${message.created.value}`, '');
    lines.push(closedFences(message.fragment?.string?.raw ?? ''), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A title on one line, without what would end a heading. */
const oneLine = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * `text` with every fenced code block closed: a fence (``` or ~~~, three or more) left open at
 * the end gets its closing fence, as long as the opening one, on a line of its own.
 */
export function closedFences(text: string): string {
  let open: { char: string; length: number } | undefined;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) continue;
    const [char, length] = [fence[1]![0]!, fence[1]!.length];
    if (!open) {
      // A backtick fence's info string may not hold a backtick (CommonMark): then it is no fence.
      if (char === '`' && fence[2]!.includes('`')) continue;
      open = { char, length };
    } else if (char === open.char && length >= open.length && fence[2]!.trim() === '') open = undefined;
  }
  const trimmed = text.replace(/\s+$/, '');
  return open ? `${trimmed}\n${open.char.repeat(open.length)}` : trimmed;
}
