/**
 * `npm run bench:render`: the cost of answering GET /conversation/{id}?transferables=false when the
 * answer is not cached, in-process, at 100 and 10,000 conversations: building the answer's objects
 * and serializing them (`JSON.stringify(renderConversation(...))`, the baseline) against writing the
 * JSON straight from the records (`conversationJson`), on the same store in the same run. Reads go
 * round the whole store, as uncached reads do. Env: BENCH_SIZES=100,10000, BENCH_READS=20000.
 */
import { createMemoryRepository } from '../src/index.js';
import { type ConversationSnapshot, conversationSnapshot, renderConversation } from '../src/render/conversation.js';
import { conversationJson } from '../src/render/conversation-json.js';
import { buildStore } from './build-store.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,10000').split(',').map(Number);
const READS = Number(process.env.BENCH_READS ?? 20_000);
const options = { transferables: false };

type Writer = (snapshot: ConversationSnapshot) => string;
const writers: Record<'objects' | 'direct', Writer> = {
  objects: (snapshot) => JSON.stringify(renderConversation(snapshot, options)),
  direct: (snapshot) => conversationJson(snapshot, options),
};

/** Microseconds per conversation written, over READS reads that go round the store (its records read before). */
function time(snapshots: readonly ConversationSnapshot[], write: Writer): number {
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < READS; i++) bytes += write(snapshots[(i * 7919) % snapshots.length]!).length;
  const micros = ((performance.now() - started) / READS) * 1000;
  if (bytes === 0) throw new Error('nothing was written');
  return micros;
}

console.log('| conversations | stringify(render) µs | conversationJson µs | ratio |');
console.log('|---|---|---|---|');
for (const size of SIZES) {
  const repository = createMemoryRepository();
  const { conversations } = await buildStore(repository, size);
  const snapshots = await repository.read(async (view) => {
    const all: ConversationSnapshot[] = [];
    for (const id of conversations) all.push(await conversationSnapshot(view, (await view.get('conversations', id))!));
    return all;
  });
  // The two take turns, five times each, and each keeps its best: the machine is shared.
  const best = { objects: Infinity, direct: Infinity };
  for (let round = 0; round < 5; round++) {
    for (const name of ['objects', 'direct'] as const) best[name] = Math.min(best[name], time(snapshots, writers[name]));
  }
  console.log(`| ${size} | ${best.objects.toFixed(1)} | ${best.direct.toFixed(1)} | ${(best.objects / best.direct).toFixed(2)}× |`);
}
