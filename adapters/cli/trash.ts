import type { TrashEmptied, TrashedConversation, TrashedConversations } from '../../src/wire.js';
import type { ApiClient } from './api-client.js';
import type { Command } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { segment } from './models/answers.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './models/server-flags.js';
import { dayOf, UNTITLED } from './search.js';
import { formatTable } from './table.js';

/** A deleted conversation, as `trash list` reads it: every field but the id optional (an older or newer server may lack one). */
type ApiTrashed = Pick<TrashedConversation, 'id'> & Partial<TrashedConversation>;

/** A name on one line, whatever it holds. */
const oneLine = (text: string) => text.replace(/[\s\p{Cc}]+/gu, ' ').trim();

/** The table of `trash list`: a row per conversation, the most recently deleted first (as the server sends them). */
export function trashRows(entries: readonly ApiTrashed[]): string[][] {
  return [
    ['ID', 'NAME', 'DELETED', 'EXPIRES', 'MESSAGES'],
    ...entries.map((entry) => [
      entry.id,
      oneLine(entry.name ?? '') || UNTITLED,
      dayOf(entry.deleted),
      dayOf(entry.expires),
      entry.messages === undefined ? '-' : String(entry.messages),
    ]),
  ];
}

/** The list of an answer; an answer without one is not this service's. */
async function listOf(client: ApiClient): Promise<readonly ApiTrashed[]> {
  const answer = await client.call<Partial<TrashedConversations> | undefined>('GET', '/trash');
  if (!Array.isArray(answer?.iterable))
    throw new CommandFailure(`${client.url} answered GET /trash without a list: is it this service, of a release with a trash?`);
  return answer.iterable;
}

/** `trash list`: the deleted conversations the server keeps. */
export const trashList: Command = {
  path: ['trash', 'list'],
  summary: 'Lists the deleted conversations the trash of a running server keeps, the most recently deleted first.',
  details: `${SERVER_ENVIRONMENT}
On a terminal the columns are aligned; into a pipe or a file they are separated by tabs.`,
  flags: SERVER_FLAGS,
  async run(input) {
    const entries = await listOf(clientFor(input));
    if (entries.length === 0) {
      process.stdout.write('The trash is empty.\n');
      return;
    }
    process.stdout.write(formatTable(trashRows(entries), process.stdout.isTTY === true));
  },
};

/** `trash restore <conversation>`: brings a deleted conversation back. */
export const trashRestore: Command = {
  path: ['trash', 'restore'],
  summary: 'Brings a deleted conversation back from the trash, with its messages, annotations and links.',
  details: `${SERVER_ENVIRONMENT}
Links to records deleted meanwhile are dropped. It fails, changing nothing, when the trash does not
hold the id or a conversation of that id exists.`,
  positionals: [{ name: 'conversation', what: 'a conversation id (see trash list)' }],
  flags: SERVER_FLAGS,
  async run(input) {
    const id = input.positionals[0]!;
    if (id.trim() === '') throw new UsageError('trash restore needs a conversation id');
    const restored = await clientFor(input).call<{ name?: string } | undefined>(
      'POST',
      `/conversations/${segment(id)}/restore?transferables=false`,
    );
    const name = oneLine(restored?.name ?? '');
    process.stdout.write(`restored ${id}${name ? ` (${name})` : ''}\n`);
  },
};

/** `trash empty`: removes every conversation in the trash for good. */
export const trashEmpty: Command = {
  path: ['trash', 'empty'],
  summary: 'Removes every conversation in the trash of a running server, for good.',
  details: SERVER_ENVIRONMENT,
  flags: SERVER_FLAGS,
  async run(input) {
    const answer = await clientFor(input).call<Partial<TrashEmptied> | undefined>('POST', '/trash/empty');
    const removed = answer?.removed ?? 0;
    process.stdout.write(`removed ${removed} conversation${removed === 1 ? '' : 's'} from the trash\n`);
  },
};

/** `trash`: the commands on the trash of a running server. */
export const trash: Command = {
  path: ['trash'],
  summary: 'Lists, restores and empties the deleted conversations of a running server.',
  commands: [trashList, trashRestore, trashEmpty],
  async run() {
    throw new UsageError('trash needs a command: list, restore or empty');
  },
};
