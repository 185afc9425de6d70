import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunnerCall, RunnerReply, RunnerRequest, RunnerResults } from './runner-protocol.js';

/** How a runner process ended, and the last lines it wrote to stderr. */
export interface RunnerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** A call the runner could not answer because its process ended (a native abort, a kill, a crash). */
export class RunnerExitedError extends Error {
  override readonly name = 'RunnerExitedError';
  constructor(readonly exit: RunnerExit) {
    super(`its runner process ${describeExit(exit)}`);
  }
}

/** A call the runner refused: `library` when node-llama-cpp itself cannot run, not the model. */
export class RunnerCallError extends Error {
  override readonly name = 'RunnerCallError';
  constructor(
    message: string,
    readonly library: boolean,
  ) {
    super(message);
  }
}

/** A child process that runs one model (`llama-runner.ts`), and the calls the service makes to it. */
export interface Runner {
  readonly pid: number | undefined;
  /**
   * Asks the runner to `call.method`. Rejects with a {@link RunnerCallError} when it answers a
   * failure, and a {@link RunnerExitedError} when its process ends first. When `signal` aborts, the
   * runner is told to end the call; one that does not within a few seconds is killed.
   */
  call<M extends RunnerCall['method']>(call: Extract<RunnerCall, { method: M }>, signal?: AbortSignal): Promise<RunnerResults[M]>;
  /** Resolves once the process has ended, however it ended. */
  readonly exited: Promise<RunnerExit>;
  /** True once {@link stop} was called: the end that follows is not a failure. */
  readonly stopping: boolean;
  /** Ends the process (SIGTERM, then SIGKILL if it lingers) and resolves once it is gone. */
  stop(): Promise<void>;
}

// The most stderr kept to explain a death: the last lines are the ones that say why.
const STDERR_TAIL_BYTES = 4_096;
const STOP_GRACE_MS = 2_000;
const ABORT_GRACE_MS = 5_000;

/**
 * Starts a runner process from `script` (default: the one shipped beside this module). It exits
 * by itself if this process goes away.
 */
export function startRunner(script: string = shippedRunnerScript()): Runner {
  // From the sources (`.ts`), through tsx.
  const execArgv = path.extname(script) === '.ts' ? ['--import', 'tsx'] : [];
  const child: ChildProcess = fork(script, [], {
    execArgv,
    serialization: 'json',
    // stdout is not read (node-llama-cpp's logs); stderr is kept to explain a crash.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  // An idle runner must not keep the service's process alive (a script that renamed a conversation
  // and is done exits, as it did before runners): only a call under way, or a stop, holds it. All
  // three handles, since the end is seen only once the process, its channel and stderr are closed.
  const holdProcess = (hold: boolean) => {
    for (const handle of [child, child.channel, child.stderr as Socket | null]) {
      if (hold) handle?.ref();
      else handle?.unref();
    }
  };
  holdProcess(false);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_BYTES);
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopping = false;
  let ended: RunnerExit | undefined;

  const exited = new Promise<RunnerExit>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null) => {
      if (ended) return;
      ended = { code, signal, stderr };
      for (const call of pending.values()) call.reject(new RunnerExitedError(ended));
      pending.clear();
      resolve(ended);
    };
    // 'close' comes after stderr is drained, so the tail holds the process's last words.
    child.once('close', end);
    child.once('error', (error) => {
      stderr += `\n${error.message}`;
      end(null, null);
    });
  });
  child.on('message', (reply: RunnerReply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (pending.size === 0) holdProcess(false);
    if (reply.ok) call.resolve(reply.value);
    else call.reject(new RunnerCallError(reply.message, reply.library === true));
  });

  const send = (request: RunnerRequest) => {
    if (!ended && child.connected) child.send(request, (error) => error && child.kill('SIGKILL'));
  };

  return {
    pid: child.pid,
    exited,
    get stopping() {
      return stopping;
    },
    call(call, signal) {
      if (ended) return Promise.reject(new RunnerExitedError(ended));
      if (signal?.aborted) return Promise.reject(new Error('The call was ended before it started.', { cause: signal.reason }));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        holdProcess(true);
        send({ ...call, id } as RunnerRequest);
        signal?.addEventListener(
          'abort',
          () => {
            if (!pending.has(id)) return;
            send({ id: nextId++, method: 'abort', target: id });
            // A runner stuck in native code cannot end the call: it goes, and the call with it.
            setTimeout(() => pending.has(id) && child.kill('SIGKILL'), ABORT_GRACE_MS).unref();
          },
          { once: true },
        );
      });
    },
    async stop() {
      stopping = true;
      if (!ended) {
        // Held until it is gone: whoever awaits the stop must see it end.
        holdProcess(true);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** `exited with code 1` or `was killed by SIGABRT`, then the last lines of its stderr. */
export function describeExit(exit: RunnerExit): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : exit.code !== null ? `exited with code ${exit.code}` : 'could not start';
  const lines = exit.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-5);
  return lines.length > 0 ? `${how}: ${lines.join(' | ').slice(-1_000)}` : how;
}

/**
 * The runner's script beside this module: `llama-runner.js` in the package (next to this file, or
 * in `runtimes/` when this code sits in a shared chunk), `llama-runner.ts` in a clone run from its
 * sources.
 */
function shippedRunnerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const name = `llama-runner${path.extname(here)}`;
  const candidates = [path.join(path.dirname(here), name), path.join(path.dirname(here), 'runtimes', name)];
  const script = candidates.find((candidate) => existsSync(candidate));
  if (!script) {
    throw new Error(
      `The GGUF runner script is missing: none of ${candidates.join(', ')} exists (a bundled app sets the runtime's \`runnerScript\`).`,
    );
  }
  return script;
}
