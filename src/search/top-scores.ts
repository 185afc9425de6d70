/** Items looked at between two points where {@link topOf} may pause. */
const STEP = 1024;

/**
 * The `k` items of `items` with the highest `scores[item]`, best first (ties: the lower item
 * first), as steps for `runInSlices`: it yields every thousand items. A heap of the `k` best so
 * far, so the cost is the items' count times log k, and no copy of the scores is made.
 */
export function* topOf(items: ArrayLike<number>, scores: ArrayLike<number>, k: number): Generator<void, number[]> {
  if (k <= 0) return [];
  // A heap whose root is the lowest-ranked item kept.
  const heap: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i % STEP === STEP - 1) yield;
    const item = items[i]!;
    if (heap.length < k) up(heap, scores, item);
    else if (above(scores, item, heap[0]!)) down(heap, scores, item);
  }
  return heap.sort((a, b) => (above(scores, a, b) ? -1 : above(scores, b, a) ? 1 : 0));
}

/** Whether `a` ranks above `b`. */
function above(scores: ArrayLike<number>, a: number, b: number): boolean {
  return scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
}

/** Adds `item` to the heap. */
function up(heap: number[], scores: ArrayLike<number>, item: number): void {
  let at = heap.length;
  heap.push(item);
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!above(scores, heap[parent]!, item)) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = item;
}

/** Puts `item` in place of the heap's root (the lowest-ranked). */
function down(heap: number[], scores: ArrayLike<number>, item: number): void {
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const lower = right < heap.length && above(scores, heap[left]!, heap[right]!) ? right : left;
    if (!above(scores, item, heap[lower]!)) break;
    heap[at] = heap[lower]!;
    at = lower;
  }
  heap[at] = item;
}
