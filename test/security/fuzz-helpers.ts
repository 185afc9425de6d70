/**
 * The pieces of the HTTP fuzz test (`fuzz.test.ts`): a seeded random source, the route table
 * written from the README (not imported from the router, so a route the router lost is still
 * fuzzed), generators of ids, query strings, bodies and content types, a sender over node:http that
 * tells an answer from a dropped connection, and the store consistency check.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Repository } from '../../src/index.js';
import { RELATION, type RelationEnd } from '../../src/relations.js';
import { said, seededModel, seeds } from '../helpers/service.js';

// ---------------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Random {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [weight, value] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return choices.at(-1)![1];
  }
  string(length: number, alphabet = ALPHANUMERIC): string {
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(this.next() * alphabet.length)];
    return text;
  }
}

/**
 * The seed of request `index`: each request draws from its own generator, so request #i of a seed
 * is the same whatever the others drew (only the real ids it names depend on what was created
 * before it, which concurrency can reorder).
 */
export function requestSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// ---------------------------------------------------------------------------------------------
// Ids: the real ones the store holds, and everything else a path segment can carry

export const POOL_KINDS = [
  'conversation',
  'message',
  'anchor',
  'asset',
  'website',
  'range',
  'workstreamSummary',
  'annotation',
  'model',
] as const;
export type PoolKind = (typeof POOL_KINDS)[number];

/** Real ids by kind: those seeded before the fuzz, plus those the fuzz's own creates answered. */
export type IdPool = Record<PoolKind, string[]>;

export const emptyPool = (): IdPool => Object.fromEntries(POOL_KINDS.map((kind) => [kind, [] as string[]])) as unknown as IdPool;

/** Ids that reach for the file system, the prototype chain or number parsing. */
const NASTY_IDS = [
  '..',
  '.',
  '..%2F..',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '..%5C..%5Cwindows',
  '%2F',
  '%252F',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '0',
  '-1',
  '1e3',
  'NaN',
  'null',
  'undefined',
  'true',
  'update',
  'create',
  'delete',
  '*',
];

/** Percent-encodings that are malformed, or decode to something odd (NUL, a lone surrogate, a slash). */
const PERCENT_JUNK = [
  '%',
  '%%',
  '%zz',
  '%0',
  '%00',
  '%FF',
  '%C3%28',
  '%E2%82',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%u0041',
  '%0A',
  '%0D%0A',
  '%09',
  '%7F',
  '%C0%AF',
];

/** Text in many scripts, with combining marks, zero-width and line-separator characters. */
const UNICODE_SAMPLES = ['café', '日本語', '🙂🚀', 'مرحبا', 'e\u0301', '\u200b', '\uffff', '\u2028', 'Ω≈ç√', '\u{10ffff}', 'ﬀ', 'İ'];

function unicodeText(random: Random): string {
  let text = '';
  const parts = random.int(1, 4);
  for (let i = 0; i < parts; i++) {
    if (random.chance(0.5)) text += random.pick(UNICODE_SAMPLES);
    else {
      // Any code point but a surrogate (encodeURIComponent refuses lone ones).
      let code = random.int(0x80, 0x10ffff);
      if (code >= 0xd800 && code <= 0xdfff) code = 0x4e00;
      text += String.fromCodePoint(code);
    }
  }
  return text;
}

/** Latin-1 characters sent unescaped in the request line (node:http lets 0x21–0xff through). */
const rawLatin1 = (random: Random) =>
  random.string(random.int(1, 12), 'abc¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ');

/** One path segment: usually a real id of `kind`, otherwise anything a client could put there. */
export function idSegment(random: Random, pool: IdPool, kind: PoolKind): string {
  const real = pool[kind];
  const all = POOL_KINDS.flatMap((k) => pool[k]);
  const make = random.weighted<() => string>([
    [45, () => (real.length > 0 ? encodeURIComponent(random.pick(real)) : random.string(8))],
    [8, () => (all.length > 0 ? encodeURIComponent(random.pick(all)) : random.string(8))], // a real id of another kind
    [8, () => random.string(random.int(1, 40))],
    [7, () => random.pick(PERCENT_JUNK) + (random.chance(0.5) ? random.string(4) : '')],
    [5, () => random.string(random.int(600, 3000))], // past the 512-character id limit
    [7, () => random.pick(NASTY_IDS)],
    [7, () => encodeURIComponent(unicodeText(random))],
    [4, () => rawLatin1(random)],
    [2, () => ''], // an empty segment: `//` in the path
  ]);
  return make();
}

// ---------------------------------------------------------------------------------------------
// Routes, from the README's table

export type BodyKind =
  | 'conversation'
  | 'message'
  | 'update'
  | 'summarize'
  | 'scores'
  | 'model'
  | 'deleteCache'
  | 'anchor'
  | 'asset'
  | 'website'
  | 'range'
  | 'workstreamSummary'
  | 'annotation';

export interface Route {
  readonly method: 'GET' | 'POST';
  /** The path with `{kind}` slots for ids, e.g. `/conversation/{conversation}/rename`; also its name in reports. */
  readonly template: string;
  /** The JSON body the route reads; absent for routes that take none. */
  readonly body?: BodyKind;
  /** What the route creates, so its answer's id joins the pool. */
  readonly creates?: PoolKind;
  /** How often the route is picked relative to others (deletes less, so real ids stay around). */
  readonly weight: number;
}

const route = (method: Route['method'], template: string, extra: Partial<Route> = {}): Route => ({
  method,
  template,
  weight: template.endsWith('/delete') ? 0.5 : extra.creates ? 2 : 1,
  ...extra,
});

/** Link routes: path under `/conversation/{c}/`, the kind of the linked record, the verbs. */
const LINKS: [string, PoolKind, string[]][] = [
  ['anchors', 'anchor', ['associate', 'delete', 'disassociate']],
  ['assets', 'asset', ['associate', 'delete', 'disassociate']],
  ['websites', 'website', ['associate', 'disassociate']],
  ['workstream_summaries', 'workstreamSummary', ['associate', 'disassociate']],
  ['grounding/temporal_range/workstreams', 'range', ['associate', 'disassociate']],
  ['grounding/messages', 'message', ['associate', 'disassociate']],
];

/** Record kinds with create, list and delete routes: path prefix and kind. */
const RECORD_KINDS: [string, PoolKind & BodyKind][] = [
  ['anchors', 'anchor'],
  ['assets', 'asset'],
  ['websites', 'website'],
  ['ranges', 'range'],
  ['workstream_summaries', 'workstreamSummary'],
  ['annotations', 'annotation'],
];

export const ROUTES: readonly Route[] = [
  route('GET', '/conversations'),
  route('POST', '/conversations/create', { body: 'conversation', creates: 'conversation' }),
  route('POST', '/conversations/{conversation}/delete'),
  route('GET', '/conversation/{conversation}'),
  route('GET', '/conversation/{conversation}/messages'),
  route('POST', '/conversation/{conversation}/rename'),
  route('POST', '/conversation/{conversation}/summarize', { body: 'summarize', creates: 'annotation' }),
  route('POST', '/conversation/{conversation}/scores/increment', { body: 'scores' }),
  route('POST', '/conversation/update', { body: 'update' }),
  ...LINKS.flatMap(([path, kind, verbs]) => verbs.map((verb) => route('POST', `/conversation/{conversation}/${path}/${verb}/{${kind}}`))),
  route('GET', '/.well-known/health'),
  route('GET', '/.well-known/version'),
  route('GET', '/models'),
  route('POST', '/models/create', { body: 'model', creates: 'model' }),
  route('POST', '/models/{model}/delete'),
  route('POST', '/models/{model}/delete/cache', { body: 'deleteCache' }),
  route('POST', '/models/unload'),
  // The model lifecycle: no download source among the fuzzed models, so nothing is fetched.
  route('GET', '/model/{model}'),
  route('POST', '/model/update', { body: 'model' }),
  route('POST', '/model/{model}/load'),
  route('POST', '/model/{model}/unload'),
  route('POST', '/model/{model}/download'),
  route('POST', '/model/{model}/download/cancel'),
  route('GET', '/model/{model}/download/progress'),
  route('POST', '/messages/create', { body: 'message', creates: 'message' }),
  route('POST', '/messages/{message}/delete'),
  ...RECORD_KINDS.flatMap(([path, kind]) => [
    route('POST', `/${path}/create`, { body: kind, creates: kind }),
    route('GET', `/${path}`),
    route('POST', `/${path}/{${kind}}/delete`),
  ]),
];

/** The route's path with every `{kind}` slot filled by `idSegment`. */
export const fillPath = (template: string, id: (kind: PoolKind) => string): string =>
  template.replace(/\{(\w+)\}/g, (_, kind: string) => id(kind as PoolKind));

/** Paths the router does not know, some close to real ones. */
export function unknownPath(random: Random): string {
  return random.pick([
    () => '/',
    () => '/conversation',
    () => '/conversation/',
    () => '/conversations/',
    () => '//conversations',
    () => '/conversations/create/extra',
    () => '/models/unload/now',
    () => '/%2e%2e/%2e%2e/etc/passwd',
    () => '/../../etc/passwd',
    () => `/${random.string(random.int(1, 30))}`,
    () => `/${random.string(5)}/${random.string(5)}/${random.string(5)}`,
    () => `/conversation/${random.string(8)}/${random.string(8)}/${random.string(8)}/${random.string(8)}`,
    () => `/${'a/'.repeat(random.int(50, 400))}`,
    () => `/${random.string(random.int(3000, 8000))}`,
    () => `/${random.string(random.int(17_000, 20_000))}`, // a request line past Node's header limit: 431
  ])();
}

/** Query strings: the README's `transferables`, the pagination to come, and junk. */
export function queryString(random: Random): string {
  // Mostly none or a valid one, so most requests reach the service rather than stop at a 400.
  if (random.chance(0.6)) return '';
  if (random.chance(0.4)) return random.pick(['?transferables=true', '?transferables=false']);
  const query = random.pick([
    'transferables=true',
    'transferables=false',
    'transferables=maybe',
    'transferables=',
    'transferables',
    'transferables=TRUE',
    'transferables=true&transferables=false',
    'transferables=%00',
    'transferables=%zz',
    'limit=-1',
    'limit=0',
    'limit=5&offset=2',
    'limit=1e3',
    'limit=99999999999999999999',
    'offset=abc',
    'offset=99999999',
    'limit=&offset=',
    '%zz=%zz',
    '=',
    '&&&',
    `${random.string(random.int(2000, 6000))}=1`,
    `transferables=false&limit=${random.int(0, 2000)}&offset=${random.int(0, 50)}`,
  ]);
  return `?${query}`;
}

// ---------------------------------------------------------------------------------------------
// Bodies

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/vnd.api+json',
  'application/octet-stream',
  '',
  ';;;',
];

/** A Content-Type header value, or undefined for none. */
export function contentType(random: Random, jsonLikely: boolean): string | undefined {
  if (jsonLikely && random.chance(0.85)) return 'application/json';
  return random.chance(0.15) ? undefined : random.pick(CONTENT_TYPES);
}

const TEXTS = [
  'How do I retry a flaky API?',
  'Use exponential backoff.',
  '',
  ' ',
  'x',
  '日本語のテキスト',
  '```ts\nconst x = 1;\n```',
  'a\u0000b',
  '🙂',
];
const text = (random: Random) => (random.chance(0.8) ? random.pick(TEXTS) : unicodeText(random) + random.string(random.int(0, 50)));
const timestamp = (random: Random) => ({ value: new Date(Date.UTC(2026, 0, 1) + random.int(0, 1e10)).toISOString() });
const maybe = <T>(random: Random, value: () => T): T | undefined => (random.chance(0.5) ? value() : undefined);
const realId = (random: Random, pool: IdPool, kind: PoolKind) =>
  pool[kind].length > 0 && random.chance(0.9) ? random.pick(pool[kind]) : random.string(random.int(1, 20));

/** A body the route should accept (ids drawn from the pool, so most of them name real records). */
export function validBody(kind: BodyKind, random: Random, pool: IdPool): unknown {
  const conversationId = () => realId(random, pool, 'conversation');
  const message = () => said(random.pick(['USER', 'ASSISTANT', 'SYSTEM'] as const), text(random));
  switch (kind) {
    case 'conversation':
      return {
        type: random.pick(['COPILOT', 'UNKNOWN']),
        name: maybe(random, () => text(random)),
        favorited: maybe(random, () => random.chance(0.5)),
        application: maybe(random, () => ({ id: 'app', name: 'VS_CODE', platform: 'LINUX' })),
        pipeline: maybe(random, () => ({ conversation: { contextualized: true } })),
        demo: maybe(random, () => false),
        messages: maybe(random, () => Array.from({ length: random.int(0, 5) }, message)),
        anchors: maybe(random, () => [{ ...seeds.anchor, fullpath: `/tmp/${random.string(6)}` }]),
        annotations: maybe(random, () => [{ type: 'COMMENT', text: text(random) }]),
      };
    case 'message':
      return {
        ...message(),
        conversation: { id: conversationId() },
        sentiment: maybe(random, () => 'LIKE'),
        created: maybe(random, () => timestamp(random)),
      };
    case 'update':
      return {
        id: conversationId(),
        name: random.pick([undefined, null, text(random)]),
        favorited: maybe(random, () => random.chance(0.5)),
        type: maybe(random, () => 'COPILOT'),
        model: random.pick([undefined, null, { id: realId(random, pool, 'model') }]),
        application: maybe(random, () => ({ name: 'JETBRAINS' })),
        pipeline: maybe(random, () => ({})),
        demo: maybe(random, () => true),
        deleted: random.pick([undefined, null, timestamp(random)]),
      };
    case 'summarize':
      return random.chance(0.3)
        ? {}
        : { messages: { iterable: Array.from({ length: random.int(0, 3) }, () => ({ id: realId(random, pool, 'message') })) } };
    case 'scores':
      return {
        conversation: { manual: random.chance(0.5), automatic: true, reuse: maybe(random, () => true) },
        asset: maybe(random, () => ({ manual: true })),
      };
    case 'model':
      return seededModel({
        unique: maybe(random, () => `fuzz-${random.string(10)}`),
        name: `Fuzz ${random.string(4)}`,
        usage: random.pick(['CODE_CONVERSATION', 'OCR', 'CODE_GENERATION']),
      });
    case 'deleteCache':
      return {};
    case 'anchor':
      return {
        ...seeds.anchor,
        fullpath: `/home/me/${random.string(8)}.ts`,
        name: maybe(random, () => text(random)),
        conversation: maybe(random, conversationId),
      };
    case 'asset':
      return random.chance(0.3)
        ? { type: 'SEEDED_ASSET', asset: seeds.asset }
        : { ...seeds.asset, metadata: maybe(random, () => ({ name: text(random) })) };
    case 'website':
      return { url: `https://example.com/${random.string(6)}`, name: text(random), conversation: maybe(random, conversationId) };
    case 'range':
      return random.chance(0.2) ? {} : seeds.range;
    case 'workstreamSummary':
      return { ...seeds.workstreamSummary, name: text(random) };
    case 'annotation':
      return {
        type: random.pick(['COMMENT', 'SUMMARY', 'DESCRIPTION']),
        text: text(random),
        conversation: maybe(random, conversationId),
        model: maybe(random, () => realId(random, pool, 'model')),
      };
  }
}

/** Values of every JSON type, including ones a schema rarely expects. */
const WRONG_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  -0,
  true,
  false,
  '',
  'str',
  [],
  {},
  [null],
  { id: 1 },
  'x'.repeat(2000),
  Number.MAX_SAFE_INTEGER + 2,
];
const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'id', 'extra', '', ' ', 'conversation', 'messages', 'toJSON'];

/** Paths to every value inside `value` (objects and arrays), the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (value && typeof value === 'object' && prefix.length < 6) {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...prefix, Array.isArray(value) ? Number(key) : key], out);
  }
  return out;
}

/** Sets an own, enumerable property, even `__proto__` (which plain assignment would treat as the prototype). */
const setOwn = (target: object, key: string | number, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** One of WRONG_VALUES, copied: later mutations must not change (or make circular) the shared ones. */
const wrongValue = (random: Random): unknown => structuredClone(random.pick(WRONG_VALUES));

/** A valid body with one thing wrong: a field of the wrong type, missing, extra, or far too long. */
export function mutatedBody(kind: BodyKind, random: Random, pool: IdPool): unknown {
  const body = JSON.parse(JSON.stringify(validBody(kind, random, pool) ?? null)) as unknown;
  const mutations = random.int(1, 3);
  let root = body;
  for (let m = 0; m < mutations; m++) {
    const path = random.pick(pathsOf(root));
    if (path.length === 0) {
      root = wrongValue(random);
      continue;
    }
    const parent = path.slice(0, -1).reduce<any>((node, key) => node?.[key], root);
    const key = path.at(-1)!;
    if (!parent || typeof parent !== 'object') continue;
    random.pick([
      () => delete parent[key],
      () => setOwn(parent, key, wrongValue(random)),
      () => setOwn(parent, random.pick(EXTRA_KEYS), wrongValue(random)),
      () => setOwn(parent, key, 'y'.repeat(random.int(1000, 100_000))),
      () => setOwn(parent, key, [parent[key], structuredClone(parent[key])]),
    ])();
  }
  return root;
}

/** Any JSON value, up to a small depth. */
export function randomJson(random: Random, depth = 4): unknown {
  const scalar = () =>
    random.pick<unknown>([null, true, false, random.int(-1e6, 1e6), random.float(), 1e308, -1e-308, text(random), unicodeText(random)]);
  if (depth === 0 || random.chance(0.35)) return scalar();
  if (random.chance(0.4)) return Array.from({ length: random.int(0, 6) }, () => randomJson(random, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = random.int(0, 6); i > 0; i--)
    setOwn(object, random.chance(0.2) ? random.pick(EXTRA_KEYS) : random.string(random.int(0, 8)), randomJson(random, depth - 1));
  return object;
}

/** Text that is almost JSON, or not at all. */
export function malformedJson(random: Random, valid: string): string {
  return random.pick([
    () => valid.slice(0, random.int(0, Math.max(0, valid.length - 1))), // truncated
    () => {
      const at = random.int(0, valid.length);
      return valid.slice(0, at) + random.pick(['"', '{', '}', ',', ':', '\\', '\u0000', '\n', 'undefined']) + valid.slice(at);
    },
    () => '{"a":1,}',
    () => "{'a':1}",
    () => 'NaN',
    () => '[1,2',
    () => '"unterminated',
    () => `\uFEFF${valid}`, // a byte-order mark first
    () => `${valid}${valid}`,
    () => '{"a":1e99999}',
    () => '{"a":"\\ud800"}',
    () => '{"a":"\\x41"}',
    () => '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
    () => 'null',
    () => '{"__proto__":{"polluted":true}}',
    () => random.string(random.int(1, 200), ' {}[]":,0123456789abcdefnulltrue\\'),
  ])();
}

/**
 * JSON nested `depth` levels, as text: objects, arrays, or both alternating. Built as text because
 * JSON.stringify itself overflows the stack at a few thousand levels.
 */
export function deepJsonText(random: Random, depth: number): string {
  const shape = random.pick(['object', 'array', 'mixed'] as const);
  let open = '';
  let close = '';
  for (let level = 0; level < depth; level++) {
    const asArray = shape === 'array' || (shape === 'mixed' && level % 2 === 1);
    open += asArray ? '[' : '{"a":';
    close = (asArray ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** The free-form field of each body kind, where the schema lets any nested value through. */
const FREE_FORM_FIELD: Record<BodyKind, string> = {
  conversation: 'application',
  message: 'model',
  update: 'pipeline',
  summarize: 'extra',
  scores: 'extra',
  model: 'capabilities',
  deleteCache: 'extra',
  anchor: 'extra',
  asset: 'application',
  website: 'extra',
  range: 'extra',
  workstreamSummary: 'model',
  annotation: 'extra',
};

/** A valid body with `depth`-deep JSON inside its free-form field (`{"inner": <deep>}`). */
export function deepBody(kind: BodyKind, random: Random, pool: IdPool, depth: number): string {
  const body = { ...(validBody(kind, random, pool) as object), [FREE_FORM_FIELD[kind]]: { inner: '__DEEP__' } };
  return JSON.stringify(body).replace('"__DEEP__"', deepJsonText(random, depth));
}

/** A body with one very long array, sized around the body limit. */
export function hugeArrayBody(kind: BodyKind, random: Random, pool: IdPool): string {
  const count = random.int(1000, 12_000);
  switch (random.int(0, 3)) {
    case 0: // many messages (valid for a new conversation)
      return JSON.stringify({ type: 'COPILOT', messages: Array.from({ length: Math.min(count, 3000) }, (_, i) => said('USER', `m${i}`)) });
    case 1: // many references
      return JSON.stringify({ messages: { iterable: Array.from({ length: count }, () => ({ id: realId(random, pool, 'message') })) } });
    case 2: // a long list inside the free-form field
      return JSON.stringify({
        ...(validBody(kind, random, pool) as object),
        [FREE_FORM_FIELD[kind]]: { list: Array.from({ length: count * 4 }, (_, i) => i) },
      });
    default: // many keys (the score increment's catch-all)
      return JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, { manual: true }])));
  }
}

/** A JSON body of `bytes` bytes (a long string field), for the body limit. */
export const paddedJson = (random: Random, bytes: number): Buffer =>
  Buffer.from(JSON.stringify({ type: 'COPILOT', name: 'z'.repeat(Math.max(0, bytes - 30)), pad: random.int(0, 9) }));

/** Bytes of any value, mostly not UTF-8. */
export function randomBytes(random: Random, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = random.int(0, 255);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Sending, and telling an answer from a dropped connection

export interface FuzzRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** Sent with `Transfer-Encoding: chunked` in slices instead of one Content-Length body. */
  readonly chunked: boolean;
  /** The route template (or "unknown path") and how the body was made, for the report. */
  readonly route: string;
  readonly bodyKind: string;
}

export type Outcome =
  | { kind: 'answer'; status: number; text: string; connection?: string; reusedSocket: boolean }
  /** No answer, a truncated one, or a connection that failed while the body was still going out. */
  | { kind: 'dropped'; error: string; status?: number; reusedSocket: boolean }
  | { kind: 'timeout'; status?: number }
  /** node:http refused to send it (an invalid header or path): the generator's fault, not the server's. */
  | { kind: 'unsendable'; error: string };

/** Most of an answer kept in memory (enough to read the id of a created conversation). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * Who hears a socket's errors: the request using it, or, once that request has settled, its
 * `onLateError`. node:http detaches its own listener when an answer ends before the body is fully
 * written; an EPIPE after that would otherwise be an uncaught exception that kills the test run.
 */
const socketErrorSinks = new WeakMap<Socket, (error: Error) => void>();

/**
 * Sends one request on the agent and settles once node:http closes it (after the answer, or after
 * an error), so an error that follows a complete answer (the server closing while the client still
 * writes a big body) is seen too.
 */
export function send(
  agent: http.Agent,
  origin: URL,
  request: FuzzRequest,
  timeoutMs: number,
  /** An error on the request's socket after the request settled (a late EPIPE while the body was still going out). */
  onLateError: (error: string) => void,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) {
      if (request.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(request.body.length);
    }
    let req: http.ClientRequest;
    try {
      req = http.request({ agent, host: origin.hostname, port: origin.port, method: request.method, path: request.path, headers });
    } catch (error) {
      resolve({ kind: 'unsendable', error: String(error) });
      return;
    }
    let response: http.IncomingMessage | undefined;
    let error: Error | undefined;
    let timedOut = false;
    const chunks: Buffer[] = [];
    let received = 0;
    // Settles once both the request and (if any) the response have closed.
    let pending = 1;
    let socket: Socket | undefined;
    const settle = () => {
      if (--pending > 0) return;
      clearTimeout(timer);
      if (socket) socketErrorSinks.set(socket, (e) => onLateError(describe(e)));
      const status = response?.statusCode;
      const reusedSocket = req.reusedSocket;
      if (timedOut) resolve({ kind: 'timeout', status });
      else if (!response) resolve({ kind: 'dropped', error: describe(error), reusedSocket });
      else if (!response.complete) resolve({ kind: 'dropped', error: `truncated answer: ${describe(error)}`, status, reusedSocket });
      else if (error) resolve({ kind: 'dropped', error: `answered ${status}, then: ${describe(error)}`, status, reusedSocket });
      else
        resolve({
          kind: 'answer',
          status: status ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          connection: response.headers.connection,
          reusedSocket,
        });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (e) => (error ??= e));
    req.on('socket', (s) => {
      socket = s;
      if (!socketErrorSinks.has(s)) s.on('error', (e) => socketErrorSinks.get(s)?.(e));
      socketErrorSinks.set(s, (e) => (error ??= e));
    });
    req.on('response', (res) => {
      response = res;
      pending++;
      res.on('data', (chunk: Buffer) => {
        if (received < MAX_ANSWER_BYTES) chunks.push(chunk);
        received += chunk.length;
      });
      res.on('error', (e) => (error ??= e));
      res.on('close', settle);
    });
    req.on('close', settle);

    if (request.body === undefined) req.end();
    else if (!request.chunked) req.end(request.body);
    else {
      // Slices of uneven size, so the server sees several chunks.
      const slice = Math.max(1, Math.ceil(request.body.length / 7));
      for (let at = 0; at < request.body.length; at += slice) req.write(request.body.subarray(at, at + slice));
      req.end();
    }
  });
}

const describe = (error: Error | undefined) =>
  error ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}` : 'closed without an error';

/** The first `length` characters of a body, quoted, with its size: enough to reproduce a failure. */
export function excerpt(body: Buffer | string | undefined, length = 240): string {
  if (body === undefined) return '(none)';
  const text = typeof body === 'string' ? body : body.toString('latin1');
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  return `${JSON.stringify(text.slice(0, length))}${text.length > length ? '…' : ''} (${bytes} bytes)`;
}

// ---------------------------------------------------------------------------------------------
// Store consistency, read over HTTP

/** The page size list routes use by default once they are paginated. */
const DEFAULT_PAGE = 1000;

type Json = any;
export type GetJson = (path: string) => Promise<Json>;

/**
 * Every item of a list route. A list of exactly one default page may be paginated: the next pages
 * are asked for with `limit`/`offset` (deduplicated by id, in case the route ignores them).
 */
export async function readAll(get: GetJson, path: string): Promise<Json[]> {
  const first = (await get(path)) as { iterable: Json[] };
  const items = [...first.iterable];
  if (items.length !== DEFAULT_PAGE) return items;
  const separator = path.includes('?') ? '&' : '?';
  for (let offset = DEFAULT_PAGE; offset < 100 * DEFAULT_PAGE; offset += DEFAULT_PAGE) {
    const page = (await get(`${path}${separator}limit=${DEFAULT_PAGE}&offset=${offset}`)) as { iterable: Json[] };
    items.push(...page.iterable);
    if (page.iterable.length < DEFAULT_PAGE) break;
  }
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.id) && seen.add(item.id));
}

const idsOf = (list: { iterable?: { id: string }[] } | undefined): string[] => (list?.iterable ?? []).map((item) => item.id);

/** Each link list of a conversation that the linked record lists back in its `conversations`. */
const TWO_SIDED_LINKS: { records: string; field: string; ids: (conversation: Json) => string[] }[] = [
  { records: '/anchors', field: 'anchors', ids: (c) => idsOf(c.anchors) },
  { records: '/assets', field: 'assets', ids: (c) => idsOf(c.assets) },
  { records: '/websites', field: 'websites', ids: (c) => idsOf(c.websites) },
  { records: '/workstream_summaries', field: 'summaries', ids: (c) => idsOf(c.summaries) },
  { records: '/ranges', field: 'grounding.temporal.workstreams', ids: (c) => idsOf(c.grounding?.temporal?.workstreams) },
];

export interface StoreState {
  conversations: Json[];
  lists: Record<string, Json[]>;
  /** Each conversation's `GET /conversation/{id}` and `GET /conversation/{id}/messages`. */
  details: Map<string, { conversation: Json; messages: Json[] }>;
}

/** Everything the consistency check looks at, read over HTTP without transferables. */
export async function readStore(get: GetJson): Promise<StoreState> {
  const conversations = await readAll(get, '/conversations?transferables=false');
  const lists: Record<string, Json[]> = {};
  for (const path of ['/anchors', '/assets', '/websites', '/ranges', '/workstream_summaries', '/annotations'])
    lists[path] = await readAll(get, path);
  const details = new Map<string, { conversation: Json; messages: Json[] }>();
  for (const { id } of conversations) {
    const encoded = encodeURIComponent(id);
    details.set(id, {
      conversation: await get(`/conversation/${encoded}?transferables=false`),
      messages: await readAll(get, `/conversation/${encoded}/messages?transferables=false`),
    });
  }
  return { conversations, lists, details };
}

/**
 * Both sides of every link agree, and every id a record names exists. Answers one line per
 * problem (empty when consistent), so a failure shows all of them at once.
 */
export function consistencyProblems({ conversations, lists, details }: StoreState): string[] {
  const problems: string[] = [];
  const conversationIds = new Set(conversations.map((c) => c.id as string));
  const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

  for (const [id, { conversation }] of details) {
    if (conversation.id !== id) problems.push(`GET /conversation/${id} answered conversation ${conversation.id}`);
  }

  for (const link of TWO_SIDED_LINKS) {
    const records = new Map((lists[link.records] ?? []).map((r) => [r.id as string, r]));
    for (const [cid, { conversation }] of details) {
      const ids = link.ids(conversation);
      for (const dup of duplicates(ids)) problems.push(`conversation ${cid} lists ${link.field} ${dup} twice`);
      for (const rid of ids) {
        const record = records.get(rid);
        if (!record) problems.push(`conversation ${cid} lists ${link.field} ${rid}, which ${link.records} does not hold`);
        else if (!idsOf(record.conversations).includes(cid))
          problems.push(`conversation ${cid} lists ${link.field} ${rid}, which does not list the conversation back`);
      }
    }
    for (const [rid, record] of records) {
      const ids = idsOf(record.conversations);
      for (const dup of duplicates(ids)) problems.push(`${link.records} ${rid} lists conversation ${dup} twice`);
      for (const cid of ids) {
        const detail = details.get(cid);
        if (!detail) problems.push(`${link.records} ${rid} lists conversation ${cid}, which does not exist`);
        else if (!link.ids(detail.conversation).includes(rid))
          problems.push(`${link.records} ${rid} lists conversation ${cid}, which does not list it in ${link.field}`);
      }
    }
  }

  // Messages belong to exactly one conversation, which lists them.
  const messages = new Map<string, Json>();
  for (const [cid, { conversation, messages: listed }] of details) {
    const referenced = idsOf(conversation.messages);
    for (const dup of duplicates(referenced)) problems.push(`conversation ${cid} lists message ${dup} twice`);
    const indices = Object.keys(conversation.messages?.indices ?? {});
    if ([...indices].sort().join() !== [...new Set(referenced)].sort().join())
      problems.push(`conversation ${cid}: messages.indices names ${indices.length} ids, iterable ${referenced.length}`);
    const listedIds = listed.map((m) => m.id as string);
    if ([...listedIds].sort().join() !== [...referenced].sort().join())
      problems.push(`conversation ${cid} lists ${referenced.length} messages, GET …/messages answers ${listedIds.length} (differing ids)`);
    for (const message of listed) {
      if (message.conversation?.id !== cid)
        problems.push(`message ${message.id}, listed by conversation ${cid}, names conversation ${message.conversation?.id}`);
      if (messages.has(message.id)) problems.push(`message ${message.id} is listed by two conversations`);
      messages.set(message.id, message);
    }
  }

  // Annotations: owned by their conversation; a summary and the messages it covers name each other.
  const annotations = new Map((lists['/annotations'] ?? []).map((a) => [a.id as string, a]));
  for (const [aid, annotation] of annotations) {
    const cid = annotation.conversation?.id as string | undefined;
    if (cid !== undefined) {
      const detail = details.get(cid);
      if (!detail) problems.push(`annotation ${aid} names conversation ${cid}, which does not exist`);
      else if (!idsOf(detail.conversation.annotations).includes(aid))
        problems.push(`annotation ${aid} names conversation ${cid}, which does not list it`);
    }
    for (const mid of idsOf(annotation.messages)) {
      const message = messages.get(mid);
      if (!message) problems.push(`annotation ${aid} covers message ${mid}, which does not exist`);
      else if (!idsOf(message.annotations).includes(aid)) problems.push(`annotation ${aid} covers message ${mid}, which does not list it`);
    }
  }
  for (const [cid, { conversation }] of details) {
    const ids = idsOf(conversation.annotations);
    for (const dup of duplicates(ids)) problems.push(`conversation ${cid} lists annotation ${dup} twice`);
    for (const aid of ids) {
      const annotation = annotations.get(aid);
      if (!annotation) problems.push(`conversation ${cid} lists annotation ${aid}, which /annotations does not hold`);
      else if (annotation.conversation?.id !== cid)
        problems.push(`conversation ${cid} lists annotation ${aid}, which names conversation ${annotation.conversation?.id}`);
    }
    // Grounding messages are shown on the conversation only; they must still exist.
    for (const mid of idsOf(conversation.grounding?.messages)) {
      if (!messages.has(mid)) problems.push(`conversation ${cid} is grounded on message ${mid}, which does not exist`);
    }
  }
  for (const [mid, message] of messages) {
    for (const aid of idsOf(message.annotations)) {
      const annotation = annotations.get(aid);
      if (!annotation) problems.push(`message ${mid} lists annotation ${aid}, which does not exist`);
      else if (!idsOf(annotation.messages).includes(mid)) problems.push(`message ${mid} lists annotation ${aid}, which does not cover it`);
    }
  }
  if (conversationIds.size !== conversations.length) problems.push('GET /conversations lists a conversation twice');
  return problems;
}

/**
 * The same agreement checked on the stored records themselves, relation by relation (the HTTP
 * answers leave out ids that name no record, so a dangling id is only visible here).
 */
export async function storedRelationProblems(repository: Repository): Promise<string[]> {
  return repository.read(async (view) => {
    const problems: string[] = [];
    const idsIn = (record: Record<string, unknown>, end: RelationEnd): string[] => {
      const value = record[end.field];
      if (end.many) return Array.isArray(value) ? (value as string[]) : [];
      return typeof value === 'string' ? [value] : [];
    };
    for (const [name, relation] of Object.entries(RELATION)) {
      for (const [from, to] of [
        [relation.a, relation.b],
        [relation.b, relation.a],
      ] as const) {
        for (const record of (await view.list(from.collection)).records as unknown as Record<string, unknown>[]) {
          for (const otherId of idsIn(record, from)) {
            const other = (await view.get(to.collection, otherId)) as unknown as Record<string, unknown> | undefined;
            if (!other)
              problems.push(
                `${name}: ${from.collection} ${String(record.id)}.${from.field} names ${to.collection} ${otherId}, which does not exist`,
              );
            else if (!idsIn(other, to).includes(record.id as string))
              problems.push(
                `${name}: ${from.collection} ${String(record.id)}.${from.field} names ${otherId}, whose ${to.field} does not name it back`,
              );
          }
        }
      }
    }
    // A summary's coverage is kept on the annotation alone: each covered message must exist and
    // belong to the summary's conversation.
    for (const annotation of (await view.list('annotations')).records) {
      for (const messageId of annotation.messages) {
        const message = await view.get('messages', messageId);
        if (!message) problems.push(`coverage: annotation ${annotation.id} covers message ${messageId}, which does not exist`);
        else if (message.conversation !== annotation.conversation)
          problems.push(
            `coverage: annotation ${annotation.id} covers message ${messageId} of another conversation (${message.conversation})`,
          );
      }
    }
    return problems;
  });
}
