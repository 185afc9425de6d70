import { LIMITS } from '../../src/limits.js';
import type { ApiClient } from './api-client.js';
import type { Command } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { segment } from './models/answers.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './models/server-flags.js';

/** Hits shown unless `--limit` says otherwise: a screenful. */
export const DEFAULT_LIMIT = 10;

/**
 * The server's answers as `search` reads them: the fields it prints, each optional but the
 * identifier, since the command must cope with an older or newer server that lacks one.
 */
interface Stamp {
  readonly value?: string;
}
interface ApiMessageHit {
  readonly identifier: string;
  readonly similarity?: number;
  readonly snippet?: string;
  readonly message?: { readonly conversation?: { readonly id?: string }; readonly created?: Stamp; readonly role?: string };
}
interface ApiConversationHit {
  readonly identifier: string;
  readonly similarity?: number;
  readonly conversation?: { readonly id?: string; readonly name?: string; readonly created?: Stamp; readonly updated?: Stamp };
  readonly messages?: { readonly iterable?: readonly ApiMessageHit[] };
}
interface ApiHits<T> {
  readonly iterable: readonly T[];
}

/** One hit as printed: a heading line, then its snippet (if any) on an indented line. */
export interface Block {
  readonly title: string;
  readonly date: string;
  readonly id: string;
  readonly snippet?: string;
}

/** The title of a conversation without a name. */
export const UNTITLED = '(untitled)';

/** A text on one line, whatever it holds: no line breaks, tabs or terminal control characters. */
const oneLine = (text: string) => text.replace(/[\s\p{Cc}]+/gu, ' ').trim();

/** `2026-01-31`: the day of a stamp, in local time as `git log --date=short` shows it; `-` when there is none. */
export function dayOf(stamp: Stamp | undefined): string {
  const time = stamp?.value === undefined ? Number.NaN : Date.parse(stamp.value);
  if (Number.isNaN(time)) return '-';
  const date = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/** The `--limit`: a whole number from 1 to the server's page size. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= LIMITS.pageSize))
    throw new UsageError(`--limit must be a whole number from 1 to ${LIMITS.pageSize}, not "${text}"`);
  return limit;
}

/** A conversation hit as printed: its name, the day it was last changed, its id, and the snippet of its best message hit. */
export function conversationBlock(hit: ApiConversationHit): Block {
  const messages = hit.messages?.iterable ?? [];
  // Best first as the server sends them; the sort (stable) only guards against a server that does not.
  const best = [...messages].sort((a, b) => (b.similarity ?? 0) - (a.similarity ?? 0)).find((m) => m.snippet);
  const name = oneLine(hit.conversation?.name ?? '');
  return {
    title: name || UNTITLED,
    date: dayOf(hit.conversation?.updated ?? hit.conversation?.created),
    id: hit.identifier,
    ...(best?.snippet ? { snippet: oneLine(best.snippet) } : {}),
  };
}

/** A message hit as printed: its conversation's name (from `names`), the day it was written, its id, and its snippet after its role. */
export function messageBlock(hit: ApiMessageHit, names: ReadonlyMap<string, string>): Block {
  const conversation = hit.message?.conversation?.id;
  const role = hit.message?.role ? `${hit.message.role.toLowerCase()}: ` : '';
  return {
    title: (conversation !== undefined && names.get(conversation)) || UNTITLED,
    date: dayOf(hit.message?.created),
    id: hit.identifier,
    ...(hit.snippet ? { snippet: `${role}${oneLine(hit.snippet)}` } : {}),
  };
}

/** `line`, cut to `width` columns with an ellipsis when longer (counting code points, so no character is split). */
export function cut(line: string, width: number): string {
  const points = [...line];
  return points.length <= width ? line : `${points.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** The blocks as printed, separated by a blank line; snippet lines cut to `width` columns when given (a terminal). */
export function formatBlocks(blocks: readonly Block[], width: number | undefined): string {
  return blocks
    .map((block) => {
      const heading = `${block.title}  ${block.date}  ${block.id}\n`;
      if (block.snippet === undefined) return heading;
      const snippet = `  ${block.snippet}`;
      return `${heading}${width === undefined ? snippet : cut(snippet, width)}\n`;
    })
    .join('\n');
}

/** The hits of an answer; an answer without them is not this service's. */
function hitsOf<T>(answer: ApiHits<T> | undefined, url: string, route: string): readonly T[] {
  if (!Array.isArray(answer?.iterable))
    throw new CommandFailure(`${url} answered POST ${route} without a list of matches: is it this service?`);
  return answer.iterable;
}

/** The names of the conversations the message hits are in, each asked once; one that cannot be read (deleted since) goes untitled. */
async function conversationNames(client: ApiClient, hits: readonly ApiMessageHit[]): Promise<Map<string, string>> {
  const ids = [...new Set(hits.flatMap((hit) => (hit.message?.conversation?.id ? [hit.message.conversation.id] : [])))];
  const names = await Promise.all(
    ids.map(async (id) => {
      try {
        const conversation = await client.call<{ name?: string }>('GET', `/conversation/${segment(id)}?transferables=false`);
        return [id, oneLine(conversation?.name ?? '')] as const;
      } catch (error) {
        if (error instanceof CommandFailure) return [id, ''] as const;
        throw error;
      }
    }),
  );
  return new Map(names);
}

/** `search "<query>"`: the conversations (or messages) of a running server that match, best first. */
export const search: Command = {
  path: ['search'],
  summary: 'Searches the conversations of a running server (or their messages), best matches first.',
  details: `${SERVER_ENVIRONMENT}
Quote a query of several words: search "garden plans". Each match is a line with the conversation's
name, the day it last changed and its id, then the best matching passage, indented (cut to the
terminal's width on a terminal). With --messages each match is a message: its conversation's name,
the day it was written, the message's id, and the passage after its role.`,
  positionals: [{ name: 'query', what: 'a query' }],
  flags: {
    limit: { type: 'string', short: 'n', value: 'N', description: `the most matches shown (default: ${DEFAULT_LIMIT})` },
    messages: { type: 'boolean', description: 'searches messages instead, each match a message' },
    ...SERVER_FLAGS,
  },
  async run(input) {
    const query = input.positionals[0]!;
    if (query.trim() === '') throw new UsageError('search needs a query');
    const limit = parseLimit(input.strings.limit);
    const client = clientFor(input);
    const messages = input.flags.has('messages');
    const route = `/${messages ? 'messages' : 'conversations'}/search?limit=${limit}&transferables=true`;
    const body = { engines: { iterable: [{ query }] } };

    let blocks: Block[];
    if (messages) {
      const iterable = hitsOf(await client.call<ApiHits<ApiMessageHit>>('POST', route, body), client.url, route);
      const names = await conversationNames(client, iterable);
      blocks = iterable.map((hit) => messageBlock(hit, names));
    } else {
      const iterable = hitsOf(await client.call<ApiHits<ApiConversationHit>>('POST', route, body), client.url, route);
      blocks = iterable.map(conversationBlock);
    }
    if (blocks.length === 0) {
      process.stdout.write(`No ${messages ? 'messages' : 'conversations'} match "${oneLine(query)}".\n`);
      return;
    }
    process.stdout.write(formatBlocks(blocks, process.stdout.isTTY ? process.stdout.columns || 80 : undefined));
  },
};
