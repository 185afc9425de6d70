import { answerTokens, cleanAnswer, contextTokensOf, promptFor, type WritingTask } from '../models/llm-writer.js';
import type { ModelRuntime, SummarizerMessage } from '../ports.js';
import type { ModelRecord } from '../records.js';
import type { OperationContext } from './context.js';
import { fitMessages } from './fit-messages.js';
import { lookUpModel, runtimeFor } from './model-lifecycle.js';

/** A title or a summary, and the model that actually wrote it. */
export interface Written {
  readonly text: string;
  readonly modelId: string;
}

/**
 * Writes a title or a summary. The writer is the conversation's `model` when a runtime runs it;
 * otherwise the service's default model; otherwise the embedded summarizer. A model that fails
 * (unreachable, too slow, an unusable answer) is reported to the logger and the embedded
 * summarizer writes instead, so the answer always says who wrote it.
 */
export async function write(
  ctx: OperationContext,
  task: WritingTask,
  messages: readonly SummarizerMessage[],
  conversationModel?: string,
): Promise<Written> {
  const { writer, unavailable } = await chooseWriter(ctx, conversationModel);
  for (const model of unavailable) {
    ctx.logger.warn(
      `Model ${model} could not write the ${task}: no runtime offers it now (is its server running?). The embedded summarizer wrote it.`,
    );
  }
  if (writer) {
    const { model, runtime } = writer;
    try {
      const answer = await runtime.chat(model, promptFor(task, messages, contextTokensOf(model, runtime)), {
        maxTokens: answerTokens(task),
        signal: AbortSignal.timeout(ctx.generationTimeoutMs),
      });
      const text = cleanAnswer(task, answer);
      if (text) return { text, modelId: model.id };
      ctx.logger.warn(
        `Model ${model.id} answered no usable ${task} (${JSON.stringify(answer.slice(0, 120))}); the embedded summarizer wrote it.`,
      );
    } catch (error) {
      ctx.logger.warn(`Model ${model.id} could not write the ${task}: ${(error as Error).message} The embedded summarizer wrote it.`);
    }
  }
  const input = fitMessages(messages, ctx.summarizer.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS).messages;
  const text = task === 'title' ? await ctx.summarizer.title(input) : await ctx.summarizer.summarize(input);
  return { text: text.trim(), modelId: ctx.summarizer.model.id };
}

const DEFAULT_MAX_INPUT_CHARS = 100_000;

/**
 * The model that should write, and its runtime: the conversation's, else the default one. Also
 * the wanted models that look like a runtime's (by their id's prefix) but that none offers now.
 */
async function chooseWriter(
  ctx: OperationContext,
  conversationModel: string | undefined,
): Promise<{ writer?: { model: ModelRecord; runtime: ModelRuntime }; unavailable: string[] }> {
  const unavailable: string[] = [];
  for (const wanted of [conversationModel, ctx.defaultModel]) {
    if (!wanted) continue;
    const model = (await lookUpModel(ctx, wanted, true))?.model;
    if (model) {
      const runtime = await runtimeFor(ctx, model);
      if (runtime) return { writer: { model, runtime }, unavailable };
    } else if (ctx.runtimes.some((runtime) => wanted.startsWith(`${runtime.name}:`)) || wanted === ctx.defaultModel) {
      // A model of a runtime it cannot list now, or a default model nobody offers: worth a word.
      unavailable.push(wanted);
    }
  }
  return { unavailable };
}
