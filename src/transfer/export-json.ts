import type { Repository } from '../ports.js';
import type { CollectionName } from '../records.js';
import { EXPORT_FORMAT, EXPORT_VERSION, EXPORTED_COLLECTIONS } from './format.js';
import { selectRecords } from './selection.js';

/** Records read per page of a collection: what the writer holds at once. */
export const EXPORT_PAGE = 500;
/** Text gathered before it is handed on: fewer, larger chunks for a socket or a file. */
const CHUNK_CHARS = 64 * 1024;

/**
 * This service's JSON export, as chunks of text: one JSON document,
 * `{"format":"conversation-model-service","version":1,"exported":"…","records":[` then one
 * `{"collection":…,"record":…}` a line, then `]}`. Records are as the store holds them (links as id
 * lists on both sides, ids and stamps kept), every collection but those not exported (the trash).
 *
 * The whole store is read a page of {@link EXPORT_PAGE} records at a time, so an export of any size
 * holds one page; messages come conversation by conversation (see messagesByConversation), so an
 * import writes them in that order; each page is read as it stands when read (an export of a store being written
 * may hold a link whose other side changed after its page was read). With `conversations`, those
 * conversations and what they hold (see {@link selectRecords}), read at once.
 */
export async function* exportJson(repository: Repository, conversations: readonly string[] | undefined, now: Date): AsyncGenerator<string> {
  // Checked before the first chunk, so an unknown conversation is an error answer, not a cut stream.
  const selection = conversations ? await repository.read((view) => selectRecords(view, conversations)) : undefined;
  let text = `{"format":${JSON.stringify(EXPORT_FORMAT)},"version":${EXPORT_VERSION},"exported":${JSON.stringify(now.toISOString())},"records":[`;
  let first = true;
  const line = (collection: CollectionName, record: unknown) => {
    text += `${first ? '\n' : ',\n'}{"collection":${JSON.stringify(collection)},"record":${JSON.stringify(record)}}`;
    first = false;
  };
  if (selection) {
    for (const [collection, records] of selection) {
      for (const record of records) {
        line(collection, record);
        if (text.length >= CHUNK_CHARS) yield take();
      }
    }
  } else {
    for (const collection of EXPORTED_COLLECTIONS) {
      if (collection === 'messages') {
        yield* messagesByConversation(repository, line, () => (text.length >= CHUNK_CHARS ? take() : undefined));
        continue;
      }
      let after: string | undefined;
      do {
        const page = await repository.read((view) =>
          view.list(collection, { ...(after === undefined ? {} : { after }), limit: EXPORT_PAGE }),
        );
        for (const record of page.records) {
          line(collection, record);
          if (text.length >= CHUNK_CHARS) yield take();
        }
        after = page.next;
      } while (after !== undefined);
    }
  }
  text += '\n]}\n';
  yield take();

  function take(): string {
    const chunk = text;
    text = '';
    return chunk;
  }
}

/**
 * Every message, conversation by conversation (each conversation's in its order), then any message
 * no conversation lists (only a Repository used directly stores one). Read by id, a page of ids at
 * a time: paging the messages collection itself costs the JSON-file store a sort of every message
 * id per page, which for 200,000 messages made an export take many minutes.
 */
async function* messagesByConversation(
  repository: Repository,
  line: (collection: CollectionName, record: unknown) => void,
  chunk: () => string | undefined,
): AsyncGenerator<string> {
  let written = 0;
  let after: string | undefined;
  do {
    const page = await repository.read((view) =>
      view.list('conversations', { ...(after === undefined ? {} : { after }), limit: EXPORT_PAGE }),
    );
    for (const conversation of page.records) {
      for (let start = 0; start < conversation.messages.length; start += EXPORT_PAGE) {
        const ids = conversation.messages.slice(start, start + EXPORT_PAGE);
        const messages = await repository.read((view) => view.getMany('messages', ids));
        for (const message of messages) {
          if (message?.conversation !== conversation.id) continue;
          line('messages', message);
          written++;
          const text = chunk();
          if (text !== undefined) yield text;
        }
      }
    }
    after = page.next;
  } while (after !== undefined);
  if (written >= (await repository.read((view) => view.count('messages')))) return;
  // Some message is listed by no conversation: the collection's own pages find it.
  let from: string | undefined;
  do {
    const page = await repository.read((view) =>
      view.list('messages', { ...(from === undefined ? {} : { after: from }), limit: EXPORT_PAGE }),
    );
    const owners = await repository.read((view) =>
      view.getMany(
        'conversations',
        page.records.map((message) => message.conversation),
      ),
    );
    page.records.forEach((message, i) => {
      if (!owners[i]?.messages.includes(message.id)) line('messages', message);
    });
    const text = chunk();
    if (text !== undefined) yield text;
    from = page.next;
  } while (from !== undefined);
}
