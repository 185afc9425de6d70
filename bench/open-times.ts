/**
 * Open time as a user sees it: a server process started afresh (bench/server-child.ts), to the end
 * of its first answer (`GET /conversation/{id}?transferables=false`), and its RSS then (VmRSS),
 * each beyond the same for an empty folder (or an empty SQLite file): the cost of what the store
 * holds. The time beyond empty is taken from the end of the process's module loading (timed in
 * the process) to the first answer's last byte: loading Node's and tsx's modules is the same with
 * or without a store, and on a loaded machine it moves by seconds from one start to the next, which
 * would bury the difference; the spawn-to-answer time is kept too. Every store is started once
 * unmeasured first (the opens measured are second starts, the files in the page cache, as a
 * restarted server finds them), then the subjects take turns for the rounds; medians.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';

const CHILD = path.resolve(import.meta.dirname, 'server-child.ts');
const TIMEOUT_MS = 300_000;

/** One start: ms from the end of the process's module loading to the first answer's last byte, from its spawn, and its RSS then. */
export interface Start {
  readonly ms: number;
  readonly spawnMs: number;
  readonly rss: number;
}

/** What to start: a server `kind` on `file`, asked for `conversation` (a missing one in an empty store). */
export interface OpenSubject {
  readonly kind: 'ours' | 'sqlite';
  readonly file: string;
  readonly conversation?: string;
}

function rssOf(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s*(\d+)\s*kB/m);
  return match ? Number(match[1]) * 1024 : NaN;
}

/** Starts `subject`'s server, times its first answer, stops it. */
export async function firstAnswer(subject: OpenSubject): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, subject.kind, subject.file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
  try {
    const { port, readyMs } = await new Promise<{ port: number; readyMs: number }>((resolve, reject) => {
      let buffer = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const newline = buffer.indexOf('\n');
        if (newline !== -1) resolve(JSON.parse(buffer.slice(0, newline)) as { port: number; readyMs: number });
      });
      child.once('exit', (code) => reject(new Error(`${subject.kind} server on ${subject.file} exited with ${code} before listening`)));
    });
    const listening = performance.now();
    const id = subject.conversation ?? randomUUID();
    await new Promise<void>((resolve, reject) => {
      const request = get({ host: '127.0.0.1', port, path: `/conversation/${id}?transferables=false`, agent: false }, (response) => {
        if (subject.conversation && response.statusCode !== 200) reject(new Error(`first answer ${response.statusCode}`));
        response
          .resume()
          .on('end', () => resolve())
          .on('error', reject);
      });
      request.on('error', reject);
    });
    const end = performance.now();
    return { ms: readyMs + (end - listening), spawnMs: end - t0, rss: rssOf(child.pid!) };
  } finally {
    clearTimeout(timer);
    child.kill('SIGTERM');
    await exited;
  }
}

/** A measured subject: its label, what to start, and the empty start its figures are beyond. */
export interface OpenCase {
  readonly label: string;
  readonly subject: OpenSubject;
  readonly empty: OpenSubject;
}

/** Per case: the medians over `rounds` of ms and RSS beyond its empty start (measured in the same round). */
export async function openRounds(
  cases: readonly OpenCase[],
  rounds: number,
): Promise<Map<OpenCase, { ms: number; rss: number; emptyMs: number; spawnMs: number; runs: number[] }>> {
  for (const c of cases) await firstAnswer(c.subject);
  const runs = new Map<OpenCase, { ms: number; rss: number; emptyMs: number; spawnMs: number }[]>();
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      const empty = await firstAnswer(c.empty);
      const full = await firstAnswer(c.subject);
      runs.set(c, [
        ...(runs.get(c) ?? []),
        { ms: full.ms - empty.ms, rss: full.rss - empty.rss, emptyMs: empty.ms, spawnMs: full.spawnMs },
      ]);
      console.error(
        `  open ${c.label}: first answer ${full.ms.toFixed(0)} ms after its modules loaded (empty ${empty.ms.toFixed(0)}; ${full.spawnMs.toFixed(0)} from spawn, empty ${empty.spawnMs.toFixed(0)}), RSS beyond empty ${((full.rss - empty.rss) / 2 ** 20).toFixed(0)} MiB`,
      );
    }
    console.error(`open round ${round + 1} of ${rounds}`);
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  return new Map(
    cases.map((c) => {
      const of = runs.get(c)!;
      return [
        c,
        {
          ms: median(of.map((r) => r.ms)),
          rss: median(of.map((r) => r.rss)),
          emptyMs: median(of.map((r) => r.emptyMs)),
          spawnMs: median(of.map((r) => r.spawnMs)),
          runs: of.map((r) => r.ms),
        },
      ];
    }),
  );
}
