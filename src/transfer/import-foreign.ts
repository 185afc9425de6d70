import { LIMITS } from '../limits.js';
import type { Repository } from '../ports.js';
import { putLinked } from '../put-linked.js';
import type { CollectionName, Timestamp } from '../records.js';
import { chatGptConversation } from './chatgpt.js';
import { derivedId, type ForeignConversation, type ForeignSource, foreignError, foreignRecords } from './foreign.js';
import type { ImportReport } from './format.js';
import { fileStamp, jsonValues, mustBeUnchanged } from './json-values.js';
import { openWebUiConversation } from './openwebui.js';
import { ImportCounts } from './report.js';

/** The most bytes one conversation of a foreign file may span. */
export const MAX_FOREIGN_CONVERSATION_BYTES = 256 * 1024 * 1024;

const READERS: Record<ForeignSource, { name: string; read: (item: unknown, index: number) => ForeignConversation }> = {
  chatgpt: { name: 'ChatGPT', read: chatGptConversation },
  openwebui: { name: 'Open WebUI', read: openWebUiConversation },
};

/**
 * Imports another program's export (an array of conversations: ChatGPT's `conversations.json`,
 * Open WebUI's chat export) into `repository`. Each conversation becomes a conversation of this
 * service with its messages along the branch chosen there; ids derive from the source's (see
 * derivedId), so a conversation imported before is found stored and left as it is (changed here
 * since, or not): a second import of a file writes nothing. The whole file is read and checked
 * first, then written a few conversations a transaction (about `batch` records).
 */
export async function importForeign(
  repository: Repository,
  file: string,
  source: ForeignSource,
  batch: number,
  now: () => Timestamp,
): Promise<ImportReport> {
  const before = await fileStamp(file);
  const stored = new Set<string>();
  const seen = new Set<string>();
  let checking: string[] = [];
  const noteStored = async () => {
    const ids = checking;
    checking = [];
    const versions = await repository.read((view) => view.versions('conversations', ids));
    ids.forEach((id, i) => versions[i] !== undefined && stored.add(id));
  };
  for await (const { conversation } of conversations(file, source)) {
    const id = derivedId(source, conversation.sourceId);
    if (seen.has(id)) continue;
    seen.add(id);
    checking.push(id);
    if (checking.length >= batch) await noteStored();
  }
  await noteStored();
  await mustBeUnchanged(file, before);

  const counts = new ImportCounts();
  let arriving = new Map<CollectionName, { id: string }[]>();
  let size = 0;
  const write = async () => {
    const records = arriving;
    arriving = new Map();
    size = 0;
    if (records.size === 0) return;
    const updated = now();
    await repository.transact((tx) => putLinked(tx, records, updated));
    for (const [collection, list] of records) counts.add(collection, 'written', list.length);
  };
  const written = new Set<string>();
  for await (const { conversation } of conversations(file, source)) {
    const records = foreignRecords(source, conversation);
    const id = records.conversation.id;
    if (stored.has(id) || written.has(id)) {
      counts.add('conversations', 'unchanged');
      counts.add('messages', 'unchanged', records.messages.length);
      continue;
    }
    written.add(id);
    const add = (collection: CollectionName, list: readonly { id: string }[]) => {
      const into = arriving.get(collection);
      if (into) into.push(...list);
      else arriving.set(collection, [...list]);
    };
    add('conversations', [records.conversation]);
    add('messages', records.messages);
    size += 1 + records.messages.length;
    if (size >= batch) await write();
  }
  await write();
  return counts.report(source);
}

/** The conversations of a foreign file, each read and checked. */
async function* conversations(file: string, source: ForeignSource): AsyncGenerator<{ conversation: ForeignConversation; index: number }> {
  const reader = READERS[source];
  let last: ForeignConversation | undefined;
  let lastIndex = -1;
  const where = () => (last ? `after conversation ${lastIndex}, "${last.sourceId.slice(0, 80)}"` : 'before its first conversation');
  for await (const found of jsonValues(file, {
    paths: ['$.*'],
    maxValueBytes: MAX_FOREIGN_CONVERSATION_BYTES,
    what: 'conversation',
    where,
  })) {
    if (typeof found.key !== 'number')
      throw foreignError(reader.name, 0, undefined, undefined, `the file is not an array of conversations`);
    const index = found.key;
    const conversation = reader.read(found.value, index);
    if (conversation.messages.length > LIMITS.messagesPerConversation) {
      throw foreignError(
        reader.name,
        index,
        conversation.sourceId,
        conversation.title,
        `it has ${conversation.messages.length} messages, more than a conversation may (${LIMITS.messagesPerConversation})`,
      );
    }
    const long = conversation.messages.find((message) => message.text.length > LIMITS.textChars);
    if (long)
      throw foreignError(
        reader.name,
        index,
        conversation.sourceId,
        conversation.title,
        `its message "${long.sourceId.slice(0, 80)}" is longer than ${LIMITS.textChars} characters`,
      );
    if ((conversation.title?.length ?? 0) > LIMITS.textChars)
      throw foreignError(reader.name, index, conversation.sourceId, conversation.title, 'its title is too long');
    last = conversation;
    lastIndex = index;
    yield { conversation, index };
  }
}
