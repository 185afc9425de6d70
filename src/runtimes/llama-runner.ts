/**
 * A runner: the child process that holds one GGUF model on node-llama-cpp and answers chats with it,
 * over IPC (`runner-protocol.ts`). It runs apart from the service because a native assert inside
 * llama.cpp aborts the whole process that hit it: here that ends this runner, and the service
 * reports it. Started by `runner-process.ts`; it exits when the service goes away.
 */

import { type LlamaEngine, LlamaLibraryError, type LoadedLlamaModel, startLlamaEngine } from './llama-engine.js';
import type { RunnerCall, RunnerReply, RunnerRequest } from './runner-protocol.js';

if (!process.send) {
  console.error('This is the runner of a GGUF model: the service starts it, with an IPC channel.');
  process.exit(2);
}

let model: LoadedLlamaModel | undefined;
const calls = new Map<number, AbortController>();

// The service is gone (or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.on('message', (request: RunnerRequest) => {
  if (request.method === 'abort') return calls.get(request.target)?.abort(new Error('The call was ended by the service.'));
  void answer(request);
});

async function answer(request: RunnerCall & { id: number }): Promise<void> {
  const controller = new AbortController();
  calls.set(request.id, controller);
  let reply: RunnerReply;
  try {
    reply = { id: request.id, ok: true, value: await run(request, controller.signal) };
  } catch (error) {
    reply = {
      id: request.id,
      ok: false,
      message: (error as Error).message,
      ...(error instanceof LlamaLibraryError ? { library: true } : {}),
    };
  } finally {
    calls.delete(request.id);
  }
  process.send?.(reply);
}

async function run(call: RunnerCall, signal: AbortSignal): Promise<unknown> {
  if (call.method === 'load') {
    if (model) throw new Error('This runner holds a model already.');
    const engine: LlamaEngine = await startLlamaEngine(call.engine);
    model = await engine.load(call.file, call.contextSize);
    return { contextSize: model.contextSize };
  }
  if (!model) throw new Error('No model is loaded in this runner.');
  return model.chat(call.messages, call.maxTokens, signal);
}
