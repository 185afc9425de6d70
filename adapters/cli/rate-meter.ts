/** How far back the speed is measured: long enough to smooth the server's bursts, short enough to follow a change of speed. */
const WINDOW_MS = 5_000;

/**
 * A download's speed from samples of its byte count: bytes per second over the last few seconds.
 * Times are passed in (milliseconds, any monotonic clock) so the measure is a pure computation.
 */
export class RateMeter {
  private readonly samples: { at: number; bytes: number }[] = [];

  /** Records that `bytes` had arrived at time `at`. A count that went down (a download started over) starts the measure afresh. */
  add(at: number, bytes: number): void {
    const last = this.samples.at(-1);
    if (last && bytes < last.bytes) this.samples.length = 0;
    this.samples.push({ at, bytes });
    // Keep one sample at or before the window's start, so the window is always spanned whole.
    while (this.samples.length > 2 && this.samples[1]!.at <= at - WINDOW_MS) this.samples.shift();
  }

  /** Bytes per second over the window, or `undefined` before two samples some time apart. */
  bytesPerSecond(): number | undefined {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at <= first.at) return undefined;
    return ((last.bytes - first.bytes) * 1000) / (last.at - first.at);
  }
}
