import type { ChatMessage } from '../ports.js';
import type { LlamaEngineOptions } from './llama-engine.js';

/** What a runner process is asked to do: load its model (once), or answer a chat with it. */
export type RunnerCall =
  | { readonly method: 'load'; readonly file: string; readonly contextSize: number; readonly engine: LlamaEngineOptions }
  | { readonly method: 'chat'; readonly messages: readonly ChatMessage[]; readonly maxTokens: number };

/** What each call answers. */
export interface RunnerResults {
  readonly load: { readonly contextSize: number };
  readonly chat: string;
}

/** A message from the service to its runner: a call, or the end of a call under way. */
export type RunnerRequest =
  | (RunnerCall & { readonly id: number })
  | { readonly id: number; readonly method: 'abort'; readonly target: number };

/** The runner's answer to call `id`. `library` marks a failure that is not the model's (node-llama-cpp missing). */
export type RunnerReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string; readonly library?: boolean };
