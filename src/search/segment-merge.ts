import { compareKeys } from './term-keys.js';
import { SegmentWriter, type TermSegment } from './term-segment.js';

/** A sorted run of terms the merge reads: a segment's cursor, or a mutable segment's (see mutable-segment.ts). */
export interface TermRun {
  readonly key: Uint8Array;
  readonly keyLength: number;
  /** Moves to the next term; false once there is none. */
  next(): boolean;
  /** Calls `visit` with each posting of the current term, in document order. */
  forEachPosting(visit: (doc: number, frequency: number) => void): void;
}

/** Terms merged per step between two yields. */
const TERMS_PER_STEP = 256;

/**
 * Merges sorted runs of terms into one segment, a step of a few hundred terms at a time (the
 * generator yields between steps: see slices.ts). The runs are given in document order: every
 * document of a run is below those of the runs after it, so a term's postings are the runs' lists
 * one after the other. `mapDoc` says what each document becomes: its number in the new segment
 * (the same, or renumbered once dead documents are dropped), or -1 to leave its postings out. A
 * term left with no posting is left out. `capacity` is a guess of the bytes written (the sum of
 * the runs' sizes), so the buffer is not grown on the way.
 */
export function* mergeRuns(runs: readonly TermRun[], mapDoc: (doc: number) => number, capacity: number): Generator<void, TermSegment> {
  const writer = new SegmentWriter(capacity);
  let live = runs.filter((run) => run.next());
  const add = (doc: number, frequency: number) => {
    const to = mapDoc(doc);
    if (to >= 0) writer.addPosting(to, frequency);
  };
  const same: TermRun[] = [];
  const ended: TermRun[] = [];
  let steps = 0;
  while (live.length > 0) {
    // The smallest term among the runs' current ones (a few runs: a pass beats a heap).
    let least = live[0]!;
    for (let i = 1; i < live.length; i++) {
      const run = live[i]!;
      if (compareKeys(run.key, run.keyLength, least.key, 0, least.keyLength) < 0) least = run;
    }
    writer.startTerm(least.key, least.keyLength);
    // The runs holding it, found before any moves on; runs are in document order, so the term's
    // postings are theirs in run order.
    same.length = 0;
    for (const run of live) if (run === least || compareKeys(run.key, run.keyLength, least.key, 0, least.keyLength) === 0) same.push(run);
    ended.length = 0;
    for (const run of same) {
      run.forEachPosting(add);
      if (!run.next()) ended.push(run);
    }
    writer.endTerm();
    if (ended.length > 0) live = live.filter((run) => !ended.includes(run));
    if (++steps === TERMS_PER_STEP) {
      steps = 0;
      yield;
    }
  }
  return yield* writer.finish();
}
