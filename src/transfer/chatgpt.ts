import { branchTo, epochStamp, type ForeignConversation, type ForeignMessage, foreignError, roleOf } from './foreign.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One conversation of ChatGPT's `conversations.json` (an array of them), flattened along the
 * branch the person last saw: from `current_node` back through each node's `parent` (without one,
 * the last child at each step from the root). Kept: the user's, the assistant's and system
 * messages with text (`text` and `multimodal_text` parts that are strings, `code` as a fenced
 * block); tool messages (browsing, code output) and empty or hidden ones are left out.
 */
export function chatGptConversation(item: unknown, index: number): ForeignConversation {
  const fail = (why: string): never => {
    throw foreignError(
      'ChatGPT',
      index,
      isObject(item) ? (item.conversation_id ?? item.id) : undefined,
      isObject(item) ? item.title : undefined,
      why,
    );
  };
  if (!isObject(item)) return fail('it is not an object');
  const sourceId = typeof item.conversation_id === 'string' ? item.conversation_id : typeof item.id === 'string' ? item.id : undefined;
  if (!sourceId) return fail('it has no "conversation_id" or "id"');
  const mapping = item.mapping;
  if (!isObject(mapping)) return fail('it has no "mapping" of messages');
  const node = (id: string) => (Object.hasOwn(mapping, id) && isObject(mapping[id]) ? (mapping[id] as Json) : undefined);
  const leaf = typeof item.current_node === 'string' && node(item.current_node) ? item.current_node : lastLeaf(mapping, node);
  const branch = leaf === undefined ? [] : branchTo(leaf, node, (n) => n.parent, fail);
  const created = epochStamp(item.create_time) ?? fail('it has no "create_time"');
  const messages: ForeignMessage[] = [];
  for (const n of branch) {
    const message = n.message;
    if (!isObject(message)) continue;
    const role = roleOf(isObject(message.author) ? message.author.role : undefined);
    const text = textOf(message.content);
    const hidden = isObject(message.metadata) && message.metadata.is_visually_hidden_from_conversation === true;
    if (!role || text === undefined || text.trim() === '' || hidden) continue;
    const id = typeof message.id === 'string' ? message.id : typeof n.id === 'string' ? n.id : fail('a message has no id');
    messages.push({ sourceId: id, role, text, created: epochStamp(message.create_time) ?? created });
  }
  return {
    sourceId,
    title: typeof item.title === 'string' ? item.title : undefined,
    created,
    updated: epochStamp(item.update_time) ?? messages.at(-1)?.created ?? created,
    messages,
  };
}

/** A message's text: its string parts joined, or its code fenced; undefined for other content. */
function textOf(content: unknown): string | undefined {
  if (!isObject(content)) return undefined;
  if (content.content_type === 'text' || content.content_type === 'multimodal_text') {
    if (!Array.isArray(content.parts)) return undefined;
    return content.parts.filter((part): part is string => typeof part === 'string').join('\n');
  }
  if (content.content_type === 'code' && typeof content.text === 'string') {
    const language = typeof content.language === 'string' && /^[\w+-]{1,30}$/.test(content.language) ? content.language : '';
    const fence = '`'.repeat(Math.max(3, longestRun(content.text, '`') + 1));
    return `${fence}${language === 'unknown' ? '' : language}\n${content.text}\n${fence}`;
  }
  return undefined;
}

/** The longest run of `char` in `text`. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Without `current_node`: from the root (the node without a parent), the last child at each step. */
function lastLeaf(mapping: Json, node: (id: string) => Json | undefined): string | undefined {
  let id = Object.keys(mapping).find((key) => {
    const parent = node(key)?.parent;
    return typeof parent !== 'string' || node(parent) === undefined;
  });
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    const children = node(id)?.children;
    const next = Array.isArray(children)
      ? children.filter((child): child is string => typeof child === 'string' && node(child) !== undefined).at(-1)
      : undefined;
    if (next === undefined) return id;
    id = next;
  }
  return id;
}
