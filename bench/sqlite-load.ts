/**
 * Fills the SQLite peer (bench/sqlite-peer.ts) with the records of a JSON-file store that
 * bench/build-store.ts built: each conversation and its messages as the service answers them
 * (`?transferables=false`), and each message's text from its record, so that the peer's answers
 * are the same bytes as the service's (bench/index.ts checks them).
 */
import type { Repository, Service } from '../src/index.js';
import type { SqliteConstructor } from './sqlite-addon.js';
import { checkpoint, loadPeer, openPeer, type PeerConversation } from './sqlite-peer.js';

const BATCH = 200;

/** Writes the peer's database at `file` (without syncing, as the store was built), folded into one file. */
export async function buildPeerFromService(
  Database: SqliteConstructor,
  file: string,
  service: Service,
  repository: Repository,
  conversations: readonly string[],
): Promise<void> {
  const db = openPeer(Database, file, { bulk: true });
  try {
    for (let start = 0; start < conversations.length; start += BATCH) {
      const batch: PeerConversation[] = [];
      for (const id of conversations.slice(start, start + BATCH)) {
        const conversation = (await service.getConversation(id, { transferables: false })) as unknown as Record<string, unknown>;
        const { iterable } = await service.listConversationMessages(id, { transferables: false });
        const records = await repository.read((view) =>
          view.getMany(
            'messages',
            iterable.map((message) => message.id),
          ),
        );
        batch.push({
          id,
          name: String(conversation.name ?? ''),
          fields: conversation,
          messages: iterable.map((message, i) => ({
            fields: message as unknown as Record<string, unknown> & { id: string },
            text: records[i]?.fragment?.string?.raw ?? '',
          })),
        });
      }
      loadPeer(db, batch);
    }
    checkpoint(db);
  } finally {
    db.close();
  }
}
