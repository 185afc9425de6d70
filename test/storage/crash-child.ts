/**
 * Run by the crash test: opens the JSON-file repository in the folder given as argv[2] and
 * commits numbered records forever, 8 transactions in flight, printing `ack <n>` for each one
 * that resolved. The parent kills it with SIGKILL at a random moment.
 */
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';

const folder = process.argv[2]!;
// A small compaction threshold, so kills also land during snapshot writes and journal rotations.
const repository = await createJsonFileRepository({ file: `${folder}/db.json`, compactAfterBytes: 64 * 1024 });
// Continue numbering after what earlier runs left, so every run adds new records.
let next = await repository.read(
  async (view) => Math.max(-1, ...(await view.list('conversations')).records.map((c) => Number(c.id.slice(1)))) + 1,
);

async function worker(): Promise<void> {
  for (;;) {
    const n = next++;
    await repository.transact((tx) => {
      tx.put('conversations', { ...conversationRecord(`c${n}`, `number ${n}`), messages: [`m${n}`] });
      // More writes in the same transaction: all must survive together or not at all. The message
      // lives in the journal, then in a message file: kills land in both moves.
      tx.put('messages', { ...messageRecord(`m${n}`, `c${n}`), fragment: { string: { raw: `message ${n}` } } });
      tx.put('websites', {
        id: `w${n}`,
        url: `https://example.com/${n}`,
        name: `${n}`,
        created: { value: '2026-01-01T00:00:00.000Z' },
        updated: { value: '2026-01-01T00:00:00.000Z' },
        conversations: [`c${n}`],
      });
    });
    process.stdout.write(`ack ${n}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: 8 }, worker));
