import { isNoSpaceError, ServiceError } from '../../errors.js';
import type { ReadView, RecordChange, Transaction } from '../../ports.js';
import { Slices } from '../../slices.js';
import { bufferedTransaction, TransactionQueue } from '../buffered-transaction.js';
import type { ChangeEmitter } from '../change-emitter.js';
import { encodeEntryInSlices, type JournalChange, type RecordSpan } from './journal.js';
import { JSON_FILE_FORMAT_VERSION } from './migrations.js';
import { applyChanges, type OpenedStore } from './open-store.js';
import { diffRecord } from './record-patch.js';

/**
 * The write path: runs transactions one at a time, applies each to memory, appends its journal
 * line (group-committed with concurrent ones) and acknowledges it once the line is on disk, then
 * makes it searchable and tells the change feed. A journal write that fails undoes, in memory,
 * every transaction whose line was not on disk yet, so memory holds what the disk holds.
 */
export class Committer {
  /** The last journal entry applied in memory. */
  seq: number;
  /**
   * Counts roll-backs: a transaction whose function was running when one came may have read what
   * was undone, so it runs again.
   */
  rollBacks = 0;
  readonly #queue = new TransactionQueue();
  /**
   * Transactions applied in memory whose journal lines are not on disk yet, oldest first, with
   * the records they replaced: a failed write undoes them.
   */
  readonly #unsettled: { seq: number; before: RecordChange[] }[] = [];

  constructor(
    private readonly file: string,
    private readonly store: Pick<OpenedStore, 'tables' | 'messages' | 'writer' | 'searchFile' | 'seq'>,
    private readonly view: ReadView,
    /** Every write, once on disk (delivered before its transact resolves). */
    private readonly feed: ChangeEmitter,
    private readonly logger: { warn(message: string): void },
    /** Throws when the store may not be written (closed, or its journal failed). */
    private readonly usable: () => void,
    /** Called after each acknowledged write (a compaction may be due). */
    private readonly afterWrite: () => void,
  ) {
    this.seq = store.seq;
    store.writer.onFailure = () => this.rollBack();
  }

  /** Undoes, in memory, every transaction whose journal line is not on disk. */
  rollBack(): void {
    const { tables, messages } = this.store;
    this.rollBacks++;
    for (const { before } of this.#unsettled.toReversed())
      for (const { collection, id, record } of before) tables.set(collection, id, record);
    if (this.#unsettled[0]) {
      messages.rollBack(this.#unsettled[0].seq);
      this.seq = this.#unsettled[0].seq - 1;
    }
    this.#unsettled.length = 0;
    // Reads saw those writes (they are applied before their journal line is on disk).
    this.feed.undone();
  }

  /** Repository.transact: see there. */
  async transact<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T> {
    const { file, view, usable } = this;
    const { tables, messages, writer, searchFile } = this.store;
    const unsettled = this.#unsettled;
    const applied = await this.#queue.run(async () => {
      usable();
      // The transaction's own time counts in the first slice of encoding its journal line.
      const slices = new Slices();
      let { tx, changes: written } = bufferedTransaction(view);
      let started = this.rollBacks;
      let result = await fn(tx);
      for (let attempt = 1; this.rollBacks !== started; attempt++) {
        if (attempt === 3) throw new Error(`Writes to ${file} keep failing; this transaction was not stored.`);
        ({ tx, changes: written } = bufferedTransaction(view));
        started = this.rollBacks;
        result = await fn(tx);
      }
      usable();
      const changes = written();
      if (changes.length === 0) return { result };
      const entrySeq = (this.seq += 1);
      const before = changes.map(({ collection, id }) => ({
        collection,
        id,
        record: collection === 'messages' ? null : ((tables.rows(collection).get(id)?.record as object | undefined) ?? null),
      }));
      applyChanges(tables, messages, changes, entrySeq);
      unsettled.push({ seq: entrySeq, before: before.filter((change) => change.collection !== 'messages') });
      const spans: RecordSpan[] = [];
      // Encoded a slice at a time, the changes turned into journal changes as they are taken.
      const line = encodeEntryInSlices(
        { seq: entrySeq, version: JSON_FILE_FORMAT_VERSION, changes: journalChanges(changes, before) },
        slices,
        spans,
      );
      return { result, entrySeq, changes, spans, stored: writer.append(line) };
    });
    if (!applied.stored) return applied.result;
    const { entrySeq, changes, spans } = applied;
    let at;
    try {
      at = await applied.stored;
    } catch (error) {
      // Undone already if the writer failed mid-batch; if it had stopped before, undone here.
      this.rollBack();
      const message = `The journal of ${file} could not be written (${(error as Error).message}); nothing of this write was kept.`;
      // A full disk is the user's to fix, not a bug: it has a code of its own (507 over HTTP).
      if (isNoSpaceError(error)) throw new ServiceError('INSUFFICIENT_STORAGE', `The disk is full. ${message}`, {}, { cause: error });
      throw new Error(message, { cause: error });
    }
    // On disk: nothing of it may be undone by a later write's failure.
    const settled = unsettled.findIndex((entry) => entry.seq === entrySeq);
    if (settled !== -1) unsettled.splice(0, settled + 1);
    // Searchable from the moment the write is acknowledged, never before it is on disk.
    searchFile?.apply(changes, this.logger);
    this.feed.emit(changes);
    const messageIds = changes.filter((change) => change.collection === 'messages').map((change) => change.id);
    if (messageIds.length > 0) await messages.settle(entrySeq, messageIds, at, spans);
    this.afterWrite();
    return applied.result;
  }
}

/**
 * The journal's form of a transaction's changes, one at a time: a patch where a record was
 * changed, else the record. Messages are always written whole, so the keydir can address them in
 * the journal line.
 */
function* journalChanges(changes: readonly RecordChange[], before: readonly RecordChange[]): Generator<JournalChange> {
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const previous = before[i]!.record;
    if (change.record === null || previous === null) yield [change.collection, change.id, change.record];
    else
      yield [
        change.collection,
        change.id,
        diffRecord(previous as Record<string, unknown>, change.record as Record<string, unknown>),
        'patch',
      ];
  }
}
