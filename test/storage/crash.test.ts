import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { queryWords } from '../../src/search/tokens.js';
import { compiledScript } from '../helpers/compiled-sources.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The child, compiled once for the run: through tsx each of the runs below would start twice as slowly (test/helpers/compiled-sources.ts). */
const CHILD = compiledScript('test/storage/crash-child.ts');
const RUNS = 20;

/** Starts the child, kills it with SIGKILL `delayMs` after it is ready, answers the acknowledged numbers. */
function runAndKill(folder: string, delayMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    // node itself, one process: SIGKILL reaches the writer.
    const child = spawn(process.execPath, [CHILD, folder], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: number[] = [];
    let buffer = '';
    let stderr = '';
    const giveUp = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The child did not get ready in time: ${stderr}`));
    }, 15_000);
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready') {
          clearTimeout(giveUp);
          setTimeout(() => child.kill('SIGKILL'), delayMs);
        } else if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      }
    });
    child.on('exit', (_code, signal) => {
      clearTimeout(giveUp);
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`The child exited by itself: ${stderr}`));
    });
  });
}

describe('crash safety of the JSON-file repository', () => {
  it(`keeps every acknowledged write across ${RUNS} kill -9 at random moments`, { timeout: 180_000 }, async () => {
    const folder = await tempDir('cms-crash-');
    let expected = new Set<string>();
    let totalAcked = 0;
    for (let run = 0; run < RUNS; run++) {
      // Spread the kill moments from right after start to well into the run.
      const delayMs = 5 + Math.floor(Math.random() * 400);
      const acked = await runAndKill(folder, delayMs);
      totalAcked += acked.length;

      const warnings: string[] = [];
      const repository = await createJsonFileRepository({ file: `${folder}/db.json`, logger: { warn: (m) => warnings.push(m) } });
      const state = await repository.read(async (view) => {
        const conversations = (await view.list('conversations')).records;
        return {
          conversations: new Set(conversations.map((c) => c.id)),
          websites: new Map((await view.list('websites')).records.map((w) => [w.id, w])),
          messages: await view.getMany(
            'messages',
            conversations.map((c) => `m${c.id.slice(1)}`),
          ),
        };
      });
      for (const n of acked) expected.add(`c${n}`);
      for (const id of expected) expect(state.conversations.has(id), `${id} acknowledged before run ${run}'s kill`).toBe(true);
      // Transactions are atomic: each conversation came with its website.
      for (const id of state.conversations) expect(state.websites.get(`w${id.slice(1)}`)?.conversations).toEqual([id]);
      // ...and its message, read from wherever it was when the process died.
      for (const message of state.messages) expect(message?.fragment?.string?.raw).toBe(`message ${message?.id.slice(1)}`);
      expect(state.messages.every((message) => message !== undefined)).toBe(true);
      // The search index holds exactly the records, whichever moment the kill hit (mid-write,
      // mid-compaction, mid-save of the index): caught up from the journal, or built again.
      const indexed = new Set([...(await repository.search!.documents!())].map((doc) => `${doc.field}:${doc.id}`));
      const stored = new Set([...[...state.conversations].map((id) => `name:${id}`), ...state.messages.map((m) => `userMessage:${m!.id}`)]);
      expect(indexed).toEqual(stored);
      const newest = [...state.conversations].at(-1);
      if (newest) {
        const hits = await repository.search!.searchConversations({
          text: '',
          words: queryWords(`number ${newest.slice(1)}`),
          prefix: false,
          limit: 1,
        });
        expect(hits[0]?.id).toBe(newest);
      }
      expected = state.conversations;
      await repository.close();
    }
    expect(totalAcked).toBeGreaterThan(0);
  });
});
