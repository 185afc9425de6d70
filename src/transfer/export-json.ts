import type { Repository } from '../ports.js';
import type { CollectionName } from '../records.js';
import { EXPORT_FORMAT, EXPORT_VERSION, EXPORTED_COLLECTIONS } from './format.js';
import { selectRecords } from './selection.js';

/** Records read per page of a collection: what the writer holds at once. */
export const EXPORT_PAGE = 200;
/** Text gathered before it is handed on: fewer, larger chunks for a socket or a file. */
const CHUNK_CHARS = 64 * 1024;

/**
 * This service's JSON export, as chunks of text: one JSON document,
 * `{"format":"conversation-model-service","version":1,"exported":"…","records":[` then one
 * `{"collection":…,"record":…}` a line, then `]}`. Records are as the store holds them (links as id
 * lists on both sides, ids and stamps kept), every collection but those not exported (the trash).
 *
 * The whole store is read a page of {@link EXPORT_PAGE} records at a time, so an export of any size
 * holds one page; each page is read as it stands when read (an export of a store being written
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
