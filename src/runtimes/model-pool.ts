/** A model held in memory: whatever frees it. */
export interface Disposable {
  dispose(): Promise<void>;
}

/** The memory policy of {@link createModelPool}. */
export interface ModelPoolOptions {
  /** Idle time after which a loaded model is unloaded; each use restarts it. */
  readonly keepAliveMs: number;
  /** Models held at once; the least recently used idle one is unloaded to make room. At least 1. */
  readonly maxLoaded: number;
  /** Generations that may wait for a model while it generates; one more is refused as busy. */
  readonly maxQueue: number;
}

/** A model that is generating and has `maxQueue` generations waiting: retry later. */
export class ModelBusyError extends Error {
  override readonly name = 'ModelBusyError';
  readonly code = 'BUSY';
  constructor(
    readonly modelId: string,
    waiting: number,
  ) {
    super(`Model ${modelId} is busy: it is generating and ${waiting} more generation(s) are waiting for it. Retry in a moment.`);
  }
}

/**
 * Loaded models, under a memory policy: a model is loaded on first use and unloaded after an idle
 * keep-alive; at most `maxLoaded` are held (the least recently used idle one makes room); each model
 * runs one generation at a time, with a bounded queue. Generic over what a loaded model is, so the
 * policy is tested without a real model.
 */
export interface ModelPool<H extends Disposable> {
  /**
   * Runs `generate` with model `id` loaded (by `load` if it is not), alone on that model: it waits
   * its turn behind the model's running generation, or rejects at once with a
   * {@link ModelBusyError} when `maxQueue` are already waiting. The signal given to `generate`
   * aborts when `signal` does or when the model is unloaded.
   */
  use<T>(id: string, load: () => Promise<H>, generate: (model: H, signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T>;
  /** Loads model `id` ahead of use; a no-op (but a use, for the keep-alive) when it is loaded. */
  load(id: string, load: () => Promise<H>): Promise<void>;
  /** Unloads model `id`: ends its generation, refuses its waiting ones, frees it. Answers whether it was loaded. */
  unload(id: string): Promise<boolean>;
  /** Unloads every model; answers the ids of those that were loaded. */
  unloadAll(): Promise<string[]>;
  /** The loaded model `id`, if it is in memory now. */
  get(id: string): H | undefined;
}

interface Entry<H> {
  readonly id: string;
  handle?: H;
  loading?: Promise<H>;
  /** A generation holds the model (it is handed from one waiter to the next without a gap). */
  busy: boolean;
  /** Resolves when the generation holding the model ends. */
  idle: Promise<void>;
  endTurn: () => void;
  readonly queue: { start(): void; refuse(error: Error): void }[];
  lastUsed: number;
  timer?: ReturnType<typeof setTimeout>;
  /** Aborted when the model is unloaded, to end its running generation. */
  readonly stop: AbortController;
  /** Set once the model is being unloaded: every caller waits for the same freeing. */
  unloading?: Promise<boolean>;
}

/** Creates a {@link ModelPool} with this memory policy. */
export function createModelPool<H extends Disposable>(options: ModelPoolOptions): ModelPool<H> {
  const maxLoaded = Math.max(1, options.maxLoaded);
  const entries = new Map<string, Entry<H>>();
  // Models being freed still hold memory: they count against the cap until they are gone.
  let freeing = 0;
  let roomWaiters: (() => void)[] = [];
  const roomChanged = () => {
    const waiters = roomWaiters;
    roomWaiters = [];
    for (const wake of waiters) wake();
  };

  const entryOf = (id: string): Entry<H> => {
    let entry = entries.get(id);
    if (!entry) {
      entry = {
        id,
        busy: false,
        idle: Promise.resolve(),
        endTurn: () => undefined,
        queue: [],
        lastUsed: Date.now(),
        stop: new AbortController(),
      };
      entries.set(id, entry);
    }
    return entry;
  };
  const holds = (entry: Entry<H>) => entry.handle !== undefined || entry.loading !== undefined;
  const forgetIfEmpty = (entry: Entry<H>) => {
    if (!holds(entry) && !entry.busy && entry.queue.length === 0 && entries.get(entry.id) === entry) entries.delete(entry.id);
  };

  function armKeepAlive(entry: Entry<H>) {
    clearTimeout(entry.timer);
    if (!entry.handle || entry.busy || entries.get(entry.id) !== entry) return;
    entry.timer = setTimeout(() => {
      if (!entry.busy && entry.queue.length === 0) void unloadEntry(entry).catch(() => undefined);
    }, options.keepAliveMs);
    // An idle model must not keep the process alive just to be unloaded later.
    entry.timer.unref?.();
  }

  function takeTurn(entry: Entry<H>) {
    entry.busy = true;
    clearTimeout(entry.timer);
    entry.lastUsed = Date.now();
    entry.idle = new Promise((resolve) => (entry.endTurn = resolve));
  }

  function endTurn(entry: Entry<H>) {
    entry.lastUsed = Date.now();
    entry.busy = false;
    entry.endTurn();
    const next = entry.queue.shift();
    if (next) next.start();
    else {
      armKeepAlive(entry);
      forgetIfEmpty(entry);
    }
    roomChanged();
  }

  /** Waits for the model's turn; rejects if the caller gives up or the model is unloaded meanwhile. */
  function waitTurn(entry: Entry<H>, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        entry.queue.splice(entry.queue.indexOf(waiter), 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error(`Gave up waiting for model ${entry.id}.`));
      };
      const waiter = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          takeTurn(entry);
          resolve();
        },
        refuse: (error: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      entry.queue.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves the next time a model ends a turn or is freed. */
  function waitRoom(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      roomWaiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async function ensureLoaded(entry: Entry<H>, load: () => Promise<H>, signal: AbortSignal): Promise<H> {
    for (;;) {
      if (entry.handle) return entry.handle;
      if (entry.loading) return entry.loading;
      if (entries.get(entry.id) !== entry) throw new Error(`Model ${entry.id} was unloaded before it could load.`);
      const others = [...entries.values()].filter((other) => other !== entry && holds(other));
      // The check and the start of the load happen in one synchronous step: two callers can never
      // both see the last free place.
      if (others.length + freeing < maxLoaded) return startLoad(entry, load);
      const idle = others
        .filter((other) => other.handle && !other.loading && !other.busy && other.queue.length === 0)
        .sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle) await unloadEntry(idle);
      else await waitRoom(signal); // every loaded model is generating: wait for one to finish
    }
  }

  function startLoad(entry: Entry<H>, load: () => Promise<H>): Promise<H> {
    const loading = (async () => {
      try {
        const handle = await load();
        if (entries.get(entry.id) !== entry) {
          // Unloaded while it loaded: free it at once.
          await handle.dispose();
          throw new Error(`Model ${entry.id} was unloaded while it loaded.`);
        }
        entry.handle = handle;
        return handle;
      } finally {
        entry.loading = undefined;
        roomChanged();
      }
    })();
    entry.loading = loading;
    return loading;
  }

  function unloadEntry(entry: Entry<H>): Promise<boolean> {
    entry.unloading ??= freeEntry(entry);
    return entry.unloading;
  }

  async function freeEntry(entry: Entry<H>): Promise<boolean> {
    if (entries.get(entry.id) === entry) entries.delete(entry.id);
    clearTimeout(entry.timer);
    const wasLoaded = holds(entry);
    entry.stop.abort(new Error(`Model ${entry.id} was unloaded.`));
    for (const waiter of entry.queue.splice(0))
      waiter.refuse(new Error(`Model ${entry.id} was unloaded while this generation waited for it.`));
    freeing++;
    // Its turn holder may be waiting for room: it must see that its model is gone.
    roomChanged();
    try {
      // Freeing a model under a running generation is unsafe for native code: end it, then free.
      await entry.idle;
      await entry.loading?.catch(() => undefined);
      const handle = entry.handle;
      entry.handle = undefined;
      await handle?.dispose();
    } finally {
      freeing--;
      roomChanged();
    }
    return wasLoaded;
  }

  return {
    async use(id, load, generate, signal) {
      const entry = entryOf(id);
      if (entry.busy) {
        if (entry.queue.length >= options.maxQueue) throw new ModelBusyError(id, entry.queue.length);
        await waitTurn(entry, signal);
      } else takeTurn(entry);
      try {
        const handle = await ensureLoaded(entry, load, signal);
        signal.throwIfAborted();
        return await generate(handle, AbortSignal.any([signal, entry.stop.signal]));
      } finally {
        endTurn(entry);
      }
    },
    async load(id, load) {
      const entry = entryOf(id);
      entry.lastUsed = Date.now();
      try {
        await ensureLoaded(entry, load, new AbortController().signal);
      } finally {
        armKeepAlive(entry);
        forgetIfEmpty(entry);
      }
    },
    async unload(id) {
      const entry = entries.get(id);
      return entry ? unloadEntry(entry) : false;
    },
    async unloadAll() {
      const loaded = [...entries.values()].filter((entry) => entry.handle !== undefined);
      await Promise.all([...entries.values()].map(unloadEntry));
      return loaded.map((entry) => entry.id);
    },
    get(id) {
      return entries.get(id)?.handle;
    },
  };
}
