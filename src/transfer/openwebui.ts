import { branchTo, epochStamp, type ForeignConversation, type ForeignMessage, foreignError, roleOf } from './foreign.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One chat of Open WebUI's export (an array of `{ id, title, created_at, updated_at, chat }`),
 * flattened along the branch the person last saw: from `chat.history.currentId` back through each
 * message's `parentId` (a chat without a history: its `chat.messages` in order). Kept: user,
 * assistant and system messages with text; others (and empty ones) are left out.
 */
export function openWebUiConversation(item: unknown, index: number): ForeignConversation {
  const fail = (why: string): never => {
    throw foreignError('Open WebUI', index, isObject(item) ? item.id : undefined, isObject(item) ? item.title : undefined, why);
  };
  if (!isObject(item)) return fail('it is not an object');
  if (typeof item.id !== 'string' || item.id === '') return fail('it has no "id"');
  const chat = item.chat;
  if (!isObject(chat)) return fail('it has no "chat"');
  const history = isObject(chat.history) ? chat.history : undefined;
  const stored = history && isObject(history.messages) ? (history.messages as Json) : undefined;
  let branch: Json[];
  if (stored) {
    const node = (id: string) => (Object.hasOwn(stored, id) && isObject(stored[id]) ? (stored[id] as Json) : undefined);
    const leaf = typeof history?.currentId === 'string' ? history.currentId : undefined;
    branch = leaf === undefined ? [] : branchTo(leaf, node, (n) => n.parentId, fail);
  } else if (Array.isArray(chat.messages)) {
    branch = chat.messages.filter(isObject);
  } else return fail('it has neither "chat.history" nor "chat.messages"');
  const created = epochStamp(item.created_at) ?? epochStamp(chat.timestamp) ?? fail('it has no "created_at"');
  const messages: ForeignMessage[] = [];
  branch.forEach((message, i) => {
    const role = roleOf(message.role);
    if (!role || typeof message.content !== 'string' || message.content.trim() === '') return;
    messages.push({
      sourceId: typeof message.id === 'string' ? message.id : `#${i}`,
      role,
      text: message.content,
      created: epochStamp(message.timestamp) ?? created,
    });
  });
  const title = typeof item.title === 'string' ? item.title : typeof chat.title === 'string' ? chat.title : undefined;
  return { sourceId: item.id, title, created, updated: epochStamp(item.updated_at) ?? messages.at(-1)?.created ?? created, messages };
}
