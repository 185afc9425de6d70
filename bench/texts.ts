/**
 * Texts for the benchmarks that store and search developer text (bench/search.ts,
 * bench/postgres.ts): chats (the developer chats, or this repository's own docs when those are
 * absent), windows cut from them at random offsets, and queries of 1 to 3 words drawn by their
 * frequency in the chats, all from a seed, so every run and process builds the same store.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { devChats } from './outside-data.js';

/** A small seeded generator (mulberry32): the same numbers in every process and run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Chat {
  readonly title: string;
  /** Its messages' texts, one after the other. */
  readonly text: string;
}

/** The chats of a developer-chats file (JSONL, bench/quality/devchats.ts), each as its title and its messages' text. */
export function readChats(file: string): Chat[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const row = JSON.parse(line) as { title: string; messages: { text: string }[] };
      return { title: row.title, text: row.messages.map((m) => m.text).join('\n\n') };
    });
}

const REPOSITORY = path.resolve(import.meta.dirname, '..');

/**
 * This repository's own prose as chats, one per file (README.md and docs/*.md, the file's name as
 * title): developer English that every clone has, for benchmarks that run without the developer chats.
 */
export function repositoryChats(): Chat[] {
  const docs = readdirSync(path.join(REPOSITORY, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((file) => ({
    title: path.basename(file, '.md'),
    text: readFileSync(path.join(REPOSITORY, file), 'utf8'),
  }));
}

/** Conversations' contents, from `seed`: a chat (in proportion to its length), and windows of its text. */
export class Texts {
  readonly #chats: Chat[];
  readonly #cumulative: number[] = [];
  readonly #random: () => number;
  readonly #shortest: number;
  readonly #longest: number;

  /** Windows of `shortest` to `longest` characters (200–1,500 by default). */
  constructor(chats: Chat[], seed: number, { shortest = 200, longest = 1500 } = {}) {
    this.#chats = chats;
    let total = 0;
    for (const chat of chats) this.#cumulative.push((total += chat.text.length));
    this.#random = seeded(seed);
    this.#shortest = shortest;
    this.#longest = longest;
  }

  chat(): Chat {
    const at = this.#random() * this.#cumulative.at(-1)!;
    let low = 0;
    let high = this.#cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#cumulative[middle]! > at) high = middle;
      else low = middle + 1;
    }
    return this.#chats[low]!;
  }

  /** A window of `chat`'s text from a random offset, cut at whitespace (all of it when shorter). */
  window(chat: Chat = this.chat()): string {
    const text = chat.text;
    const length = this.#shortest + Math.floor(this.#random() * (this.#longest - this.#shortest + 1));
    if (text.length <= length) return text;
    let start = Math.floor(this.#random() * (text.length - length));
    let end = start + length;
    const space = /\s/;
    while (start > 0 && !space.test(text[start - 1]!)) start--;
    while (end > start + this.#shortest && end < text.length && !space.test(text[end]!)) end--;
    return text.slice(start, end).trim() || text.slice(start, start + length);
  }
}

const STOP = new Set(
  'the and for with that this you are from not but can have has was were will would should could its into then than there their them they what when where which who how why all any our out use using used also just like get set see let run now new one two via your about after before each more most other some such only over under been being does did done make made need here'.split(
    ' ',
  ),
);

/** `count` queries of 1, 2 and 3 words in turn, words drawn by their frequency in the chats (stop words and words under 3 letters left out). */
export function queries(chats: readonly Chat[], count: number, seed: number): string[] {
  const bag: string[] = [];
  for (const chat of chats) for (const word of chat.text.toLowerCase().match(/[a-z]{3,}/g) ?? []) if (!STOP.has(word)) bag.push(word);
  const random = seeded(seed);
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: 1 + (i % 3) }, () => bag[Math.floor(random() * bag.length)]!).join(' '),
  );
}

/**
 * The texts a benchmark stores and searches: the developer chats when they are there
 * (bench/outside-data.ts), else this repository's own docs; and which, for its output.
 */
export function benchChats(): { chats: Chat[]; source: string } {
  const data = devChats();
  return existsSync(data.file)
    ? { chats: readChats(data.file), source: `the developer chats (${data.file})` }
    : { chats: repositoryChats(), source: "this repository's README.md and docs/*.md (the developer chats are absent)" };
}
