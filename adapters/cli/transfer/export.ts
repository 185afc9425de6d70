import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isServiceError, markdownFileName } from '../../../src/index.js';
import type { Repository } from '../../../src/ports.js';
import { exportConversations } from '../../../src/transfer/index.js';
import type { Command, CommandInput } from '../command.js';
import { CommandFailure, UsageError } from '../failures.js';
import { clientFor, SERVER_ENVIRONMENT } from '../models/server-flags.js';
import { directStore, TRANSFER_FLAGS, withStore } from './store-flags.js';

/** Where an export's text comes from: the server's route, or a store opened here. */
interface Source {
  /** The export's chunks, for these conversations (all without). */
  chunks(format: 'json' | 'markdown', conversations: readonly string[] | undefined): Promise<AsyncIterable<Uint8Array | string>>;
  /** Every conversation's id and name, for a folder of Markdown files. */
  conversations(): Promise<{ id: string; name?: string }[]>;
}

/** `export`: the records as this service's JSON, or the conversations as Markdown. */
export const exportCommand: Command = {
  path: ['export'],
  summary: "Exports the conversations: this service's JSON (every record, lossless) or Markdown files.",
  flags: {
    format: { type: 'string', value: 'json|markdown', description: 'json (default): every record, ids and links kept; markdown: to read' },
    out: {
      type: 'string',
      value: 'PATH',
      description: 'the file to write (default: stdout); for markdown of more than one conversation, a folder',
    },
    conversation: { type: 'string', value: 'ID', description: 'only this conversation (repeat for more), with what it holds and links to' },
    ...TRANSFER_FLAGS,
  },
  details: `${SERVER_ENVIRONMENT}
The export is streamed from the server (or from the store, with --data-dir or --database-url) as it
is read, and written to a temporary file renamed into place at the end: a failed export leaves no
half file. Markdown of every conversation (or of several) is a folder, one file each, named after
the titles. See docs/export-import.md.
Examples:
  conversation-model-service export --out conversations.json
  conversation-model-service export --format markdown --out ./notes
  conversation-model-service export --format markdown --conversation <id> --out talk.md
  conversation-model-service export --data-dir ./data --out conversations.json`,
  async run(input) {
    const format = input.strings.format ?? 'json';
    if (format !== 'json' && format !== 'markdown') throw new UsageError(`--format must be json or markdown, not "${format}"`);
    const conversations = repeated(input, 'conversation');
    const out = input.strings.out;
    const folder = format === 'markdown' && conversations?.length !== 1;
    if (folder && out === undefined)
      throw new UsageError('a markdown export of more than one conversation is a folder: give it with --out DIR');
    const location = directStore(input);
    const run = (source: Source) => (folder ? writeFolder(source, out!, conversations) : writeOne(source, format, conversations, out));
    if (location) await withStore(location, true, (repository) => run(storeSource(repository)));
    else await run(serverSource(input));
  },
};

/** Every value a repeated string flag was given, in order. */
const repeated = (input: CommandInput, name: string): readonly string[] | undefined =>
  input.lists?.[name] ?? (input.strings[name] === undefined ? undefined : [input.strings[name]!]);

async function writeOne(
  source: Source,
  format: 'json' | 'markdown',
  conversations: readonly string[] | undefined,
  out: string | undefined,
): Promise<void> {
  const chunks = await source.chunks(format, conversations);
  if (out === undefined) {
    await pipeline(Readable.from(chunks), process.stdout, { end: false });
    return;
  }
  const target = path.resolve(out);
  const partial = `${target}.partial`;
  try {
    await pipeline(Readable.from(chunks), createWriteStream(partial, { flags: 'w' }));
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw failure(error, target);
  }
  process.stderr.write(`Exported to ${target}.\n`);
}

async function writeFolder(source: Source, out: string, only: readonly string[] | undefined): Promise<void> {
  const folder = path.resolve(out);
  await mkdir(folder, { recursive: true });
  const wanted = only ? new Set(only) : undefined;
  const all = await source.conversations();
  const list = wanted ? all.filter((c) => wanted.has(c.id)) : all;
  for (const id of wanted ?? []) if (!list.some((c) => c.id === id)) throw new CommandFailure(`No conversation has the id "${id}".`);
  const taken = new Set<string>();
  for (const conversation of list) {
    let text = '';
    for await (const chunk of await source.chunks('markdown', [conversation.id]))
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const file = path.join(folder, markdownFileName(conversation.name, conversation.id, taken));
    try {
      await writeFile(file, text);
    } catch (error) {
      throw failure(error, file);
    }
  }
  process.stderr.write(`Exported ${list.length} conversations to ${folder}.\n`);
}

function failure(error: unknown, file: string): Error {
  if (error instanceof CommandFailure) return error;
  if (isServiceError(error)) return new CommandFailure(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  return new CommandFailure(`Cannot write ${file}${code ? ` (${code})` : ''}: ${(error as Error).message}`);
}

function storeSource(repository: Repository): Source {
  const ctx = { repository, now: () => ({ value: new Date().toISOString() }) };
  return {
    async chunks(format, conversations) {
      const iterable = exportConversations(ctx, { format, ...(conversations ? { conversations } : {}) });
      const iterator = iterable[Symbol.asyncIterator]();
      // The first chunk now: an unknown conversation fails before any file is made.
      const first = await iterator.next().catch((error) => {
        throw failure(error, '');
      });
      return (async function* () {
        if (first.done) return;
        yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      })();
    },
    async conversations() {
      const out: { id: string; name?: string }[] = [];
      let after: string | undefined;
      do {
        const page = await repository.read((view) => view.list('conversations', { ...(after === undefined ? {} : { after }), limit: 500 }));
        for (const c of page.records) out.push({ id: c.id, ...(c.name !== undefined ? { name: c.name } : {}) });
        after = page.next;
      } while (after !== undefined);
      return out;
    },
  };
}

function serverSource(input: CommandInput): Source {
  const client = clientFor(input);
  return {
    async chunks(format, conversations) {
      const query = new URLSearchParams({ format });
      for (const id of conversations ?? []) query.append('conversation', id);
      const response = await client.stream('GET', `/conversations/export?${query}`);
      return response;
    },
    async conversations() {
      const out: { id: string; name?: string }[] = [];
      for (let offset = 0; ; ) {
        const page = await client.call<{ iterable: { id: string; name?: string }[]; next?: number }>(
          'GET',
          `/conversations?transferables=false&limit=500&offset=${offset}`,
        );
        for (const c of page.iterable) out.push({ id: c.id, ...(c.name !== undefined ? { name: c.name } : {}) });
        if (page.next === undefined || page.iterable.length === 0) return out;
        offset = page.next;
      }
    },
  };
}
