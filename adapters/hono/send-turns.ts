/**
 * Sends to many sockets spread over turns of the event loop: at most `perTurn` per turn, the rest
 * in the turns after, so that the requests that arrive meanwhile (a write, a read) are served
 * between them rather than after every subscriber has been sent a frame. A write to a socket on
 * loopback costs tens of microseconds (the kernel delivers it in the same call), so a frame for
 * 1,000 subscribers would hold the event loop for tens of milliseconds at once. A stream waiting
 * for its turn keeps collecting changes, coalesced by id: under a burst of writes, subscribers are
 * sent fewer, fuller frames.
 */
export class SendTurns {
  #left: number;
  #waiting: (() => void)[] = [];
  #next: NodeJS.Immediate | undefined;

  constructor(private readonly perTurn: number) {
    this.#left = perTurn;
  }

  /** Resolves when the caller may send: at once while this turn has sends left, else in a later turn. */
  take(): Promise<void> | undefined {
    this.#schedule();
    if (this.#left > 0 && this.#waiting.length === 0) {
      this.#left--;
      return undefined;
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #schedule(): void {
    this.#next ??= setImmediate(this.#turn);
  }

  readonly #turn = (): void => {
    this.#next = undefined;
    this.#left = this.perTurn;
    const ready = this.#waiting.splice(0, this.perTurn);
    this.#left -= ready.length;
    for (const resolve of ready) resolve();
    if (this.#waiting.length > 0) this.#schedule();
  };
}
