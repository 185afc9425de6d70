/**
 * The request bodies take exactly the keys the official client can send. The client,
 * `@pieces.app/pieces-os-client`, writes each body with its model's `…ToJSON`, which emits the keys
 * of that model and no other: so every input object of the service is strict. It accepts each key
 * the client's model has (using it, or ignoring it), and refuses any other as an `unknown field`,
 * named by its path. A misspelling such as `nmae` is refused rather than silently dropped.
 *
 * Which client model each body is comes from the client itself: the request its API classes send
 * to the same method and path as the OpenAPI document's operation. The keys come from running the
 * client's `…ToJSON` on a probe (a value whose every property is another probe), so the test reads
 * the client's key lists rather than a copy of them: a client release that adds a key fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputSchemas } from '../../adapters/hono/input-schemas.js';
import { createOpenApiDocument } from '../../adapters/hono/openapi.js';
import { isServiceError } from '../../src/index.js';
import { ignoredField, jsonObjectSchema, openEnumSchema, UNKNOWN_FIELD } from '../../src/schemas/common.js';
import { modelDeleteCacheInputSchema, seededAssetSchema, seededScoreSchema } from '../../src/schemas/index.js';
import { parseInput } from '../../src/validate.js';
import { routerForTest, path as urlPath } from '../helpers/http.js';
import { serviceForTest } from '../helpers/service.js';

const require = createRequire(import.meta.url);
const CLIENT_MAIN = require.resolve('@pieces.app/pieces-os-client');
const client = require('@pieces.app/pieces-os-client') as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// What the client sends, read from the client

/** `METHOD /path/{}/…` → the client model of the body it sends there (undefined: no body). */
function clientBodies(): Map<string, string | undefined> {
  const apis = path.join(path.dirname(CLIENT_MAIN), 'apis');
  const bodies = new Map<string, string | undefined>();
  for (const file of readdirSync(apis).filter((name) => name.endsWith('.js'))) {
    const source = readFileSync(path.join(apis, file), 'utf8');
    for (const [request] of source.matchAll(/this\.request\(\{[\s\S]*?\}, initOverrides\)/g)) {
      const route = /path: `([^`]*)`/.exec(request)?.[1];
      const method = /method: '(\w+)'/.exec(request)?.[1];
      if (!route || !method) continue;
      const body = /body: \(0, index_1\.(\w+)ToJSON\)/.exec(request)?.[1];
      bodies.set(routeKey(method, route), body);
    }
  }
  return bodies;
}

const routeKey = (method: string, route: string) => `${method.toUpperCase()} ${route.replace(/\{[^}]*\}/g, '{}')}`;

const ISO = '2026-01-02T03:04:05.000Z';
/** A client value whose every property is itself (lists are empty), so `…ToJSON` emits every key it knows. */
const TERMINAL: unknown = new Proxy(() => {}, {
  get: (_, key) => (key === 'map' ? () => [] : key === 'toISOString' ? () => ISO : typeof key === 'symbol' ? undefined : TERMINAL),
  ownKeys: () => [],
});

/** The tree of what the client sends: `'value'` for a leaf, a list of one item, or an object by key. */
type Sent = 'value' | Sent[] | { [key: string]: Sent };

/**
 * What `…ToJSON` of the client writes for a body, each key present. The probe follows the
 * service's schema (`guide`) into objects and lists, so lists the service reads have one item to
 * look into; elsewhere lists are empty (the client's models refer to each other in cycles).
 */
function sentBy(model: string, guide: z.ZodType): Sent {
  const toJson = client[`${model}ToJSON`] as ((value: unknown) => unknown) | undefined;
  if (!toJson) throw new Error(`The client has no ${model}ToJSON`);
  return tree(toJson(probe(guide)));
}

function probe(guide: z.ZodType | undefined): unknown {
  const node = guide && unwrap(guide);
  const kind = node && kindOf(node);
  if (kind !== 'object' && kind !== 'array') return TERMINAL;
  return new Proxy(() => {}, {
    get(_, key) {
      if (key === 'map') return kind === 'array' ? (each: (item: unknown) => unknown) => [each(probe(def(node).element))] : () => [];
      if (key === 'toISOString') return () => ISO;
      if (typeof key === 'symbol') return undefined;
      return kind === 'object' ? probe(def(node).shape?.[key]) : TERMINAL;
    },
    ownKeys: () => [],
  });
}

function tree(value: unknown): Sent {
  if (Array.isArray(value)) return value.map(tree);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tree(item)]));
  return 'value';
}

// ---------------------------------------------------------------------------------------------
// The service's schemas, looked into

interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  format?: string;
  catchall?: z.ZodType;
  getter?: () => z.ZodType;
}
const def = (schema: z.ZodType | undefined) =>
  (schema as unknown as { _zod: { def: Def } } | undefined)?._zod.def ?? ({ type: 'none' } as Def);

/** Without its optional/nullable/lazy wrappers, unless it is an ignored field (itself optional). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  // A lazy schema (the search engines, which nest) is the schema it stands for.
  while (current !== ignoredField && ['optional', 'nullable', 'default', 'readonly', 'lazy'].includes(def(current).type))
    current = def(current).type === 'lazy' ? def(current).getter!() : def(current).innerType!;
  return current;
}

type Kind = 'ignored' | 'json' | 'object' | 'array' | 'preprocess' | 'leaf';
function kindOf(schema: z.ZodType): Kind {
  if (schema === ignoredField) return 'ignored';
  if (schema === jsonObjectSchema) return 'json';
  const { type, in: input } = def(schema);
  if (type === 'object') return 'object';
  if (type === 'array') return 'array';
  if (type === 'pipe' && def(input).type === 'transform') return 'preprocess';
  return 'leaf';
}

/** A strict object takes no key beyond its shape; a loose or stripping one does. */
const isStrict = (schema: z.ZodType) => def(def(schema).catchall).type === 'never';

/** The SeededAsset the client wraps in a Seed (`{ type: "SEEDED_ASSET", asset }`). */
const bareSeededAsset = def(seededAssetSchema).out!;
const seedOfAsset = z.strictObject({
  schema: ignoredField,
  type: z.literal('SEEDED_ASSET'),
  asset: bareSeededAsset,
  person: ignoredField,
  anchor: ignoredField,
  website: ignoredField,
});

// ---------------------------------------------------------------------------------------------
// The fullest body: every key the client can send, each with a value the service takes

/** A value for `schema` with every key `sent` has; `objectPaths` collects where the schema has an object. */
function fullest(
  schema: z.ZodType,
  sent: Sent | undefined,
  at: (string | number)[] = [],
  objectPaths: (string | number)[][] = [],
): unknown {
  const node = unwrap(schema);
  const { type, shape = {}, element, out, entries, values, format } = def(node);
  switch (kindOf(node)) {
    case 'ignored':
      return plain(sent);
    case 'json':
      return sent !== undefined && typeof sent === 'object' && !Array.isArray(sent) ? plain(sent) : {};
    case 'object': {
      objectPaths.push(at);
      const keys = new Set([...Object.keys(typeof sent === 'object' && !Array.isArray(sent) ? sent : {})]);
      // Required fields the client model lacks still get a value (none should: the test says so).
      for (const [key, field] of Object.entries(shape)) if (!field.safeParse(undefined).success) keys.add(key);
      const sentObject = (typeof sent === 'object' && !Array.isArray(sent) ? sent : {}) as Record<string, Sent>;
      return Object.fromEntries(
        [...keys].map((key) => [
          key,
          shape[key] ? fullest(shape[key]!, sentObject[key], [...at, key], objectPaths) : plain(sentObject[key]),
        ]),
      );
    }
    case 'array':
      return [fullest(element!, Array.isArray(sent) ? sent[0] : undefined, [...at, 0], objectPaths)];
    case 'preprocess':
      return fullest(out!, sent, at, objectPaths);
    default:
      if (node === openEnumSchema) return 'LLAMA_3_8B';
      if (type === 'enum') return Object.values(entries!).find((value) => value !== 'UNKNOWN') ?? Object.values(entries!)[0];
      if (type === 'literal') return values![0];
      if (type === 'boolean') return true;
      if (type === 'number') return 1;
      // The search engines' nesting limit: past it, `operations` takes nothing.
      if (type === 'unknown') return undefined;
      if (type === 'string') return format === 'datetime' ? ISO : format === 'url' ? 'https://example.com/' : 'value';
      throw new Error(`No sample for a ${type} at ${at.join('.')}`);
  }
}

/** What the client would put there, as plain JSON. */
function plain(sent: Sent | undefined): unknown {
  if (sent === undefined || sent === 'value') return 'value';
  if (Array.isArray(sent)) return sent.map(plain);
  return Object.fromEntries(Object.entries(sent).map(([key, item]) => [key, plain(item)]));
}

/** The client keys at `at` in `sent`, or undefined when the client has no object there. */
function sentKeysAt(sent: Sent, at: (string | number)[]): string[] | undefined {
  let node: Sent | undefined = sent;
  for (const step of at)
    node = typeof step === 'number' ? (Array.isArray(node) ? node[0] : undefined) : (node as Record<string, Sent> | undefined)?.[step];
  return node !== undefined && typeof node === 'object' && !Array.isArray(node) ? Object.keys(node) : undefined;
}

function withKey(value: unknown, at: (string | number)[], key: string): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const step of at) node = node[step] as Record<string | number, unknown>;
  node[key] = 'x';
  return copy;
}

function refusal(schema: z.ZodType, value: unknown, what: string) {
  try {
    parseInput(schema, value, what);
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The bodies

/** Each request body of the OpenAPI document, by its schema's name: the schema, and the client model it is. */
/** The client model each request body is, where its name is not the schema's own. */
const CLIENT_MODELS: Readonly<Record<string, string>> = {
  ConversationUpdate: 'Conversation',
  SeededAsset: 'Seed',
  ModelUpdate: 'Model',
  MessageUpdate: 'ConversationMessage',
  MessageValueUpdate: 'ConversationMessage',
  AnnotationUpdate: 'Annotation',
};

/**
 * Each request body of the OpenAPI document, by its schema's name (the route table's own list):
 * the schema, and the client model it is. SeededScore is listed there only to be referenced by
 * name inside other bodies; no route takes it alone.
 */
const BODIES: Record<string, { schema: z.ZodType; client: string; guide?: z.ZodType }> = Object.fromEntries(
  Object.entries(inputSchemas as Record<string, z.ZodType>)
    .filter(([name]) => name !== 'SeededScore')
    .map(([name, schema]) => [
      name,
      { schema, client: CLIENT_MODELS[name] ?? name, ...(name === 'SeededAsset' ? { guide: seedOfAsset } : {}) },
    ]),
);

/** Keys the service takes beyond the client's model: SeededScore's `manual` and `automatic`, scores the service keeps. */
function serviceKeys(schema: z.ZodType): string[] {
  if (schema === seededScoreSchema) return ['manual', 'automatic'];
  return [];
}

interface Body {
  name: string;
  schema: z.ZodType;
  sent: Sent;
  value: unknown;
  objectPaths: (string | number)[][];
}

function built(name: string): Body {
  const { schema, client: model, guide } = BODIES[name]!;
  const objectPaths: (string | number)[][] = [];
  const sent = sentBy(model, guide ?? schema);
  const value = fullest(guide ?? schema, sent, [], objectPaths);
  return { name, schema, sent, value, objectPaths };
}

describe('request bodies against the official client', () => {
  it('cover every body of the OpenAPI document, each the model the client sends to that operation', () => {
    const doc = createOpenApiDocument() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
    };
    const sentByClient = clientBodies();
    const seen = new Map<string, Set<string>>();
    for (const [route, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const ref = operation.requestBody?.content['application/json']?.schema.$ref;
        if (!ref) continue;
        const name = ref.split('/').at(-1)!;
        const key = routeKey(method, route);
        expect(BODIES[name], `${key} takes ${name}: add it to BODIES`).toBeDefined();
        if (!sentByClient.has(key)) continue; // A route of the service's own, or a spelling the client does not use.
        const model = sentByClient.get(key);
        if (model !== undefined) (seen.get(name) ?? seen.set(name, new Set()).get(name)!).add(model);
      }
    }
    // Each body the client sends somewhere is the model BODIES names (and only that one).
    for (const [name, models] of seen) expect([...models], name).toEqual([BODIES[name]!.client]);
    // Every body is sent by the client to at least one route, so the check above covered them all.
    expect([...seen.keys()].sort()).toEqual(Object.keys(BODIES).sort());
  });

  it.each(Object.keys(BODIES))('%s takes every key the client can send, and nothing else', (name) => {
    const body = built(name);
    // Where the service has an object, it is strict, and its keys are the client model's (plus the service's own).
    for (const at of body.objectPaths) {
      const node = at.reduce<z.ZodType>((schema, step) => {
        const { shape, element } = def(unwrap(schema));
        return unwrap((typeof step === 'number' ? element : shape?.[step])!);
      }, BODIES[name]!.guide ?? body.schema);
      const own = Object.keys(def(node).shape ?? {});
      expect(isStrict(node), `${name} at ${at.join('.') || '(top)'} is strict`).toBe(true);
      const clientKeys = sentKeysAt(body.sent, at);
      expect(clientKeys, `${name} at ${at.join('.') || '(top)'}: the client sends an object there`).toBeDefined();
      expect(own.sort(), `${name} at ${at.join('.') || '(top)'}`).toEqual([...new Set([...clientKeys!, ...serviceKeys(node)])].sort());
    }
  });

  it.each(Object.keys(BODIES))('%s accepts the fullest body the client can send', (name) => {
    const body = built(name);
    expect(refusal(body.schema, body.value, name)?.details).toBeUndefined();
    if (name === 'SeededAsset') {
      // Unwrapped, as a bare SeededAsset, too.
      expect(refusal(body.schema, (body.value as { asset: unknown }).asset, name)?.details).toBeUndefined();
    }
  });

  it.each(Object.keys(BODIES))('%s refuses a key the client never sends, at every level, naming it', (name) => {
    const body = built(name);
    for (const at of body.objectPaths) {
      const refused = refusal(body.schema, withKey(body.value, at, 'nmae'), name);
      // A Seed's asset is checked unwrapped: its paths start inside the asset.
      const where = name === 'SeededAsset' && at[0] === 'asset' ? at.slice(1) : at;
      expect(refused?.code, `nmae at ${at.join('.') || '(top)'}`).toBe('INVALID_INPUT');
      expect(refused?.details.issues?.[0], `nmae at ${at.join('.') || '(top)'}`).toEqual({
        path: [...where, 'nmae'],
        message: UNKNOWN_FIELD,
      });
      expect(refused?.message).toBe(`Invalid ${name} at "${[...where, 'nmae'].join('.')}": ${UNKNOWN_FIELD}.`);
    }
  });

  it("ModelDeleteCacheInput takes only the client's `schema`, which it ignores", () => {
    expect(parseInput(modelDeleteCacheInputSchema, { schema: {} }, 'ModelDeleteCacheInput')).toEqual({ schema: undefined });
    expect(() => parseInput(modelDeleteCacheInputSchema, { extra: 1 }, 'ModelDeleteCacheInput')).toThrow(/unknown field/);
  });

  it('SeededScore is the client model with the service’s manual and automatic scores', () => {
    const clientKeys = Object.keys(tree((client.SeededScoreToJSON as (value: unknown) => unknown)(TERMINAL)) as object);
    expect(Object.keys(def(seededScoreSchema).shape!).sort()).toEqual([...clientKeys, 'manual', 'automatic'].sort());
    expect(isStrict(seededScoreSchema)).toBe(true);
  });
});

describe('unknown fields at run time', () => {
  it('POST /conversations/create with a misspelled field answers 400 naming it, and creates nothing', async () => {
    const { http } = await routerForTest();
    const answer = await http.postText('/conversations/create', '{"type":"COPILOT","nmae":"x"}');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: `Invalid SeededConversation at "nmae": ${UNKNOWN_FIELD}.`,
      issues: [{ path: ['nmae'], message: UNKNOWN_FIELD }],
    });
    expect((await http.get('/conversations')).body.iterable).toEqual([]);
  });

  it('a misspelled field of a seeded message is named with its index', async () => {
    const { service } = await serviceForTest();
    const seed = {
      type: 'COPILOT',
      messages: [
        { role: 'USER', fragment: { string: { raw: 'hi' } } },
        { role: 'USER', fragmnet: {} },
      ],
    };
    await expect(service.createConversation(seed as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: expect.arrayContaining([{ path: ['messages', 1, 'fragmnet'], message: UNKNOWN_FIELD }]) },
    });
    expect((await service.listConversations()).iterable).toEqual([]);
  });

  it('the fullest SeededConversation the client can send is created; the keys the service does not use leave nothing', async () => {
    const { http } = await routerForTest();
    const body = built('SeededConversation').value as Record<string, unknown>;
    const created = await http.postJson('/conversations/create', body);
    expect(created.status, created.text).toBe(200);
    expect(created.body).not.toHaveProperty('schema');
    expect(created.body.assets).toEqual({ iterable: [] });
    expect(created.body.websites).toEqual({ iterable: [] });
    const [message] = created.body.messages.iterable;
    expect(message.reference).not.toHaveProperty('assets');
    expect(message.reference.fragment).not.toHaveProperty('bytes');
    expect(message.reference.fragment.string).toEqual({ raw: 'value', base64: 'value', base64_url: 'value', data_url: 'value' });
  });

  it('a whole Conversation sent back to /conversation/update changes only its mutable fields', async () => {
    const { http, service } = await routerForTest();
    const conversation = await service.createConversation({
      type: 'COPILOT',
      name: 'Before',
      messages: [{ role: 'USER', fragment: { string: { raw: 'hi' } } }],
    });
    const read = (await http.get(urlPath`/conversation/${conversation.id}`)).body;
    const answer = await http.postJson('/conversation/update', {
      ...read,
      name: 'After',
      created: { value: '2000-01-01T00:00:00.000Z' },
      messages: { iterable: [] },
      score: { manual: 99 },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ name: 'After', created: read.created });
    expect(answer.body.messages.iterable.map((m: { id: string }) => m.id)).toEqual(read.messages.iterable.map((m: { id: string }) => m.id));
    expect(answer.body.score).toEqual(read.score);
  });
});
