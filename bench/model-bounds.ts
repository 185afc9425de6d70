/**
 * What a model's huge answer costs the server: the real server process (the CLI's `serve`) whose
 * default model is on a local OpenAI-compatible fake that answers each rename with 400 MiB of
 * title, as fast as the socket takes it. Measured over a few such renames, one after the other:
 * the server process's RSS (before, peak, rise), the latency of `GET /.well-known/health` asked
 * meanwhile one request after the other (target: p99 ≤ 250 ms), how many bytes the fake wrote
 * before the service closed the connection, and the renames' statuses and times.
 *
 * Run alone with `npx tsx bench/model-bounds.ts`, or from `bench/models.ts` through
 * {@link benchHugeAnswer} and {@link formatHugeAnswer}. Figures only, no assertions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startOpenAiServer } from '../test/helpers/openai-server.js';
import { rssMiBOf } from '../test/helpers/processes.js';
import { type ServeProcess, startServeProcess, watchServer } from '../test/helpers/serve-process.js';
import { percentile } from './stats.js';

const MiB = 2 ** 20;

/** The figures of one {@link benchHugeAnswer} run. RSS in MiB, times in milliseconds. */
export interface HugeAnswerFigures {
  readonly answerBytes: number;
  readonly rssBefore: number;
  readonly rssPeak: number;
  readonly rssRise: number;
  readonly health: { readonly count: number; readonly failed: number; readonly p50: number; readonly p99: number; readonly max: number };
  /** The most bytes the fake wrote of one answer before the service closed the connection (all, if it never did). */
  readonly bytesSent: number;
  /** Each rename's HTTP status and time. */
  readonly renames: readonly { readonly status: number; readonly ms: number }[];
}

/**
 * Starts the fake model server and the server process, renames a conversation `renames` times
 * (default 10) while its model answers `answerBytes` (default 400 MiB) each time and the process
 * is watched, and stops both. Needs /proc (Linux) to read the process's memory.
 */
export async function benchHugeAnswer({ answerBytes = 400 * MiB, renames = 10 } = {}): Promise<HugeAnswerFigures> {
  // The warm-up conversation's answer is an error, at once: the embedded summarizer writes its
  // title, so that its NLP model is loaded before the memory is measured.
  const fake = await startOpenAiServer(['huge-answers'], (chat) =>
    chat.messages.some((message) => message.content.includes('Warm up'))
      ? { status: 503, body: 'warming up' }
      : { streamBytes: answerBytes },
  );
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cms-bench-bounds-'));
  let server: ServeProcess | undefined;
  try {
    server = await startServeProcess(dataDir, { OPENAI_BASE_URL: fake.baseUrl, DEFAULT_MODEL: 'openai:huge-answers' });
    const url = server.url;
    const post = (route: string, body: unknown = {}) =>
      fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const conversation = async (raw: string) => {
      const messages = [{ role: 'USER', fragment: { string: { raw } } }];
      return ((await (await post('/conversations/create', { type: 'COPILOT', messages })).json()) as { id: string }).id;
    };
    await (await post(`/conversation/${await conversation('Warm up the embedded summarizer, please.')}/rename`)).text();
    const id = await conversation('How do I retry a flaky payment API in TypeScript without hammering it?');

    const rssBefore = rssMiBOf(server.pid) ?? Number.NaN;
    const watched = await watchServer(server, async () => {
      const answers: { status: number; ms: number }[] = [];
      for (let i = 0; i < renames; i++) {
        const started = performance.now();
        const response = await post(`/conversation/${id}/rename`);
        await response.text();
        answers.push({ status: response.status, ms: performance.now() - started });
      }
      return answers;
    });
    await Promise.all(fake.streams.map((stream) => stream.done));
    const latencies = watched.health.map((answer) => answer.ms);
    return {
      answerBytes,
      rssBefore,
      rssPeak: watched.peakRssMiB,
      rssRise: watched.peakRssMiB - rssBefore,
      health: {
        count: latencies.length,
        failed: watched.health.filter((answer) => answer.status !== 200).length,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        max: Math.max(...latencies),
      },
      bytesSent: Math.max(...fake.streams.map((stream) => stream.sent)),
      renames: watched.result,
    };
  } finally {
    server?.kill();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The figures as the lines the benchmarks print. */
export function formatHugeAnswer(figures: HugeAnswerFigures): string {
  const { health, renames } = figures;
  const mib = (value: number) => `${value.toFixed(1)} MiB`;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const times = renames.map((rename) => rename.ms);
  const statuses = [...new Set(renames.map((rename) => rename.status))].join(', ');
  return [
    `A model answering ${mib(figures.answerBytes / MiB)} to each of ${renames.length} renames, through the server process:`,
    `- renames: status ${statuses}, p50 ${ms(percentile(times, 0.5))}, max ${ms(Math.max(...times))}; the fake wrote at most ${mib(figures.bytesSent / MiB)} of an answer before the service closed the connection`,
    `- server RSS: ${mib(figures.rssBefore)} before, ${mib(figures.rssPeak)} at the peak (+${mib(figures.rssRise)}; target ≤ 64 MiB)`,
    `- GET /.well-known/health meanwhile: ${health.count} requests, ${health.failed} failed, p50 ${ms(health.p50)}, p99 ${ms(health.p99)} (target ≤ 250 ms), max ${ms(health.max)}`,
  ].join('\n');
}

// Run alone (`npx tsx bench/model-bounds.ts`), not when imported by another benchmark.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatHugeAnswer(await benchHugeAnswer()));
}
