import type { WinkMethods } from 'wink-nlp';

/**
 * Holds the wink-nlp pipeline of the embedded summarizer. The pipeline is built on first use and
 * dropped on `unload()`; the parsed English model (about 10 MB of heap) belongs to the pipeline, so
 * dropping the pipeline lets it be garbage-collected. Only the small module code stays cached by Node.
 */
export interface NlpHolder {
  /** The pipeline, loading it first if needed. Concurrent callers share one load. */
  get(): Promise<WinkMethods>;
  /** True while the pipeline is in memory. */
  isLoaded(): boolean;
  /** Drops the pipeline; the next `get()` builds a new one. */
  unload(): void;
}

/** Creates an empty holder; nothing is imported until the first `get()`. */
export function createNlpHolder(): NlpHolder {
  let nlp: WinkMethods | undefined;
  let loading: Promise<WinkMethods> | undefined;

  return {
    get() {
      if (nlp) return Promise.resolve(nlp);
      if (loading) return loading;
      const attempt: Promise<WinkMethods> = loadPipeline().then(
        (loaded) => {
          // An unload() during the load wins: callers still get a pipeline, but it is not kept.
          if (loading === attempt) {
            nlp = loaded;
            loading = undefined;
          }
          return loaded;
        },
        (error: unknown) => {
          if (loading === attempt) loading = undefined;
          throw error;
        },
      );
      loading = attempt;
      return attempt;
    },
    isLoaded: () => nlp !== undefined,
    unload() {
      nlp = undefined;
      loading = undefined;
    },
  };
}

async function loadPipeline(): Promise<WinkMethods> {
  // Dynamic imports keep `import { createExtractiveSummarizer }` cheap: the model is read on first use.
  const [{ default: winkNLP }, { default: model }] = await Promise.all([import('wink-nlp'), import('wink-eng-lite-web-model')]);
  // Sentence boundaries and part-of-speech tags are all the summarizer needs; skipping NER,
  // negation and sentiment makes reading a document several times faster.
  return winkNLP(model, ['sbd', 'pos']);
}
