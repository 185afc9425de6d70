import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    summarizer: 'src/summarizers/index.ts',
    'adapters/hono/index': 'adapters/hono/index.ts',
    'adapters/hono/serve': 'adapters/hono/serve.ts',
    'runtimes/openai-compatible': 'src/runtimes/openai-compatible.ts',
    cli: 'adapters/cli/main.ts',
    'runtimes/llama-cpp': 'src/runtimes/llama-cpp.ts',
    // The Repository contract suite, for stores of your own (imports vitest, an optional peer dependency).
    testing: 'src/testing/index.ts',
    // The parts stores are built from, for stores of your own.
    'store-kit': 'src/store-kit.ts',
    // The PostgreSQL store (loads `pg`, an optional peer dependency, when a store is made).
    postgres: 'src/stores/postgres/index.ts',
    // Not an export: the child process each loaded GGUF model runs in (`runner-process.ts` starts it).
    'runtimes/llama-runner': 'src/runtimes/llama-runner.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Both entries share the core through one chunk, so error classes exist once.
  splitting: true,
});
