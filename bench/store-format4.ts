/**
 * The stores bench:store measures, written straight to disk in format 4's snapshot layout (one
 * record per line, every collection present), a record at a time, so that 50,000 conversations
 * (0.65 GB) are written without holding them. The same records as bench/build-store.ts: 20
 * messages and two website links per conversation, one website per two conversations, with ids
 * derived from the position, so a child process knows every id from the count alone. The records
 * are format 4's: typed here, not with this checkout's types, which may have moved on.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

/** The version the written snapshots say they are. */
export const FORMAT_4 = 4;
/** Format 4's collections, in its snapshot's order. */
export const FORMAT_4_COLLECTIONS = [
  'conversations',
  'messages',
  'annotations',
  'anchors',
  'assets',
  'websites',
  'workstreamSummaries',
  'ranges',
  'models',
] as const;
type Collection = (typeof FORMAT_4_COLLECTIONS)[number];

export const MESSAGES_PER_CONVERSATION = 20;
const at = { value: '2026-01-01T00:00:00.000Z' };
const [CONVERSATION, MESSAGE, WEBSITE] = [1, 2, 3];
/** A UUID-shaped id (36 characters, like the service's), unique per kind and index. */
const idOf = (kind: number, index: number) =>
  `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
/** The id of the built store's conversation number `index`. */
export const conversationId = (index: number) => idOf(CONVERSATION, index);

const TEXT = 'Use exponential backoff with jitter, cap the delay, and give up after a few tries so the build does not hang. ';
export function messageText(chars: number): string {
  return TEXT.repeat(Math.ceil(chars / TEXT.length)).slice(0, chars);
}

const websiteCountFor = (count: number) => Math.max(200, Math.ceil(count / 2));
const linkedWebsites = (i: number, websiteCount: number) => [i % websiteCount, (i * 7 + 3) % websiteCount];

function* recordsOf(collection: Collection, count: number, text: string): Generator<object> {
  const websiteCount = websiteCountFor(count);
  if (collection === 'conversations') {
    for (let i = 0; i < count; i++) {
      yield {
        id: idOf(CONVERSATION, i),
        type: 'COPILOT',
        name: `Conversation ${i}`,
        created: at,
        updated: at,
        messages: Array.from({ length: MESSAGES_PER_CONVERSATION }, (_, m) => idOf(MESSAGE, i * MESSAGES_PER_CONVERSATION + m)),
        annotations: [],
        anchors: [],
        assets: [],
        websites: linkedWebsites(i, websiteCount).map((w) => idOf(WEBSITE, w)),
        summaries: [],
        groundingMessages: [],
        groundingRanges: [],
      };
    }
  } else if (collection === 'messages') {
    for (let i = 0; i < count; i++) {
      for (let m = 0; m < MESSAGES_PER_CONVERSATION; m++) {
        yield {
          id: idOf(MESSAGE, i * MESSAGES_PER_CONVERSATION + m),
          created: at,
          updated: at,
          conversation: idOf(CONVERSATION, i),
          role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
          fragment: { string: { raw: text } },
          groundedConversations: [],
        };
      }
    }
  } else if (collection === 'websites') {
    const links: string[][] = Array.from({ length: websiteCount }, () => []);
    for (let i = 0; i < count; i++) for (const w of linkedWebsites(i, websiteCount)) links[w]!.push(idOf(CONVERSATION, i));
    for (let w = 0; w < websiteCount; w++) {
      yield {
        id: idOf(WEBSITE, w),
        url: `https://example.com/page/${w}`,
        name: `Page ${w}`,
        created: at,
        updated: at,
        conversations: links[w]!,
      };
    }
  }
}

/** Writes the format-4 snapshot of `count` conversations a record at a time, as format 4's SnapshotFile lays it out. */
export async function writeFormat4Store(file: string, count: number, text: string): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const put = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await put(`{\n"version": ${FORMAT_4},\n"journalSeq": 0`);
  for (const name of FORMAT_4_COLLECTIONS) {
    await put(`,\n"${name}": [`);
    let written = 0;
    for (const record of recordsOf(name, count, text)) await put(`${written++ === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`);
    await put(written > 0 ? '\n]' : ']');
  }
  await put('\n}\n');
  out.end();
  await finished(out);
}

/**
 * Stops the run if the streamed layout differs in one byte from what format 4's own snapshot
 * writer (`SnapshotFile` of the baseline checkout at `baselineRoot`) writes.
 */
export async function checkFormat4Writer(folder: string, baselineRoot: string, text: string): Promise<void> {
  const { SnapshotFile } = (await import(pathToFileURL(path.join(baselineRoot, 'src/stores/json-file/snapshot.ts')).href)) as {
    SnapshotFile: new (file: string) => { write(data: object): Promise<void> };
  };
  const [streamed, byStore] = [path.join(folder, 'streamed.json'), path.join(folder, 'by-store.json')];
  const count = 3;
  await writeFormat4Store(streamed, count, text);
  const data: Record<string, unknown> = { version: FORMAT_4, journalSeq: 0 };
  for (const name of FORMAT_4_COLLECTIONS) data[name] = [...recordsOf(name, count, text)];
  await new SnapshotFile(byStore).write(data);
  if (!(await readFile(streamed)).equals(await readFile(byStore)))
    throw new Error(`The streamed snapshot ${streamed} differs from the one format 4's SnapshotFile (${baselineRoot}) writes, ${byStore}.`);
  await rm(streamed);
  await rm(byStore);
}
