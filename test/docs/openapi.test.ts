/**
 * The OpenAPI document: it validates as OpenAPI 3.1, it describes exactly the routes the router
 * serves (so the two cannot drift), every operation of the official client that the service
 * implements is in it at the client's method and path, and real answers fit their schemas.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createHonoRouter, createOpenApiDocument } from '../../adapters/hono/index.js';
import { toOpenApiPath } from '../../adapters/hono/openapi.js';
import type { AnswerName } from '../../adapters/hono/route.js';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import type { Service } from '../../src/index.js';
import { answerSchemas } from '../../src/schemas/answers.js';
import { conversationWith, said, seeds, serviceForTest } from '../helpers/service.js';

type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; requestBody?: unknown }>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, unknown> };
};

const DOCS_ROUTES = new Set(['/openapi.json', '/docs', '/docs/:asset']);

/** Every operation of the document as `METHOD /path {param}`, with its id. */
function operationsOf(doc: Doc): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) out.set(`${method.toUpperCase()} ${path}`, op.operationId);
  }
  return out;
}

/** The official client's operations, read from its generated API classes: name → method and path. */
function clientOperations(): Map<string, { method: string; path: string }> {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('@pieces.app/pieces-os-client/package.json')), 'dist', 'apis');
  const out = new Map<string, { method: string; path: string }>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('Api.js'))) {
    const source = readFileSync(join(dir, file), 'utf8');
    for (const match of source.matchAll(/async (\w+)Raw\([^)]*\)\s*\{[^]*?path: `([^`]*)`[^]*?method: '(\w+)'/g)) {
      out.set(match[1]!, { method: match[3]!, path: match[2]! });
    }
  }
  return out;
}

/** The client's operations this service implements: each must be in the document at the client's method and path. */
const CLIENT_OPERATIONS = [
  'getWellKnownHealth',
  'conversationsStreamIdentifiers',
  'conversationMessagesStreamIdentifiers',
  'annotationsStreamIdentifiers',
  'modelsStreamIdentifiers',
  'getWellKnownVersion',
  'conversationsCreateSpecificConversation',
  'conversationsSnapshot',
  'conversationsDeleteSpecificConversation',
  'conversationUpdate',
  'conversationGetSpecificConversation',
  'conversationSpecificConversationMessages',
  'conversationSpecificConversationRename',
  'conversationSummarize',
  'conversationScoresIncrement',
  'conversationSpecificConversationPrepare',
  'conversationsIdentifiersSnapshot',
  'conversationsCreateFromAsset',
  'conversationsCreateFromWorkstreamSummary',
  'messagesSnapshot',
  'messageSpecificMessageSnapshot',
  'messageSpecificMessageUpdate',
  'messageUpdateValue',
  'messageScoresIncrement',
  'annotationSpecificAnnotationSnapshot',
  'annotationUpdate',
  'annotationScoresIncrement',
  'searchAnnotations',
  'modelScoresIncrement',
  'conversationAssociateAnchor',
  'conversationDisassociateAnchor',
  'conversationAssociateAsset',
  'conversationDisassociateAsset',
  'conversationAssociateWebsite',
  'conversationDisassociateWebsite',
  'conversationAssociateWorkstreamSummary',
  'conversationDisassociateWorkstreamSummary',
  'conversationAssociateGroundingTemporalRangeWorkstream',
  'conversationDisassociateGroundingTemporalRangeWorkstream',
  'conversationGroundingMessagesAssociateMessage',
  'conversationGroundingMessagesDisassociateMessage',
  'messagesCreateSpecificMessage',
  'messagesDeleteSpecificMessage',
  'anchorsCreateNewAnchor',
  'anchorsSnapshot',
  'anchorsDeleteSpecificAnchor',
  'assetsCreateNewAsset',
  'assetsSnapshot',
  'assetsDeleteAsset',
  'websitesCreateNewWebsite',
  'websitesSnapshot',
  'websitesDeleteSpecificWebsite',
  'rangesCreateNewRange',
  'rangesSnapshot',
  'rangesDeleteSpecificRange',
  'workstreamSummariesCreateNewWorkstreamSummary',
  'workstreamSummariesSnapshot',
  'workstreamSummariesDeleteSpecificWorkstreamSummary',
  'annotationsCreateNewAnnotation',
  'annotationsSnapshot',
  'annotationsDeleteSpecificAnnotation',
  'modelsSnapshot',
  'modelsCreateNewModel',
  'unloadModels',
  'modelsDeleteSpecificModel',
  'modelsDeleteSpecificModelCache',
  'modelsSpecificModelSnapshot',
  'modelUpdate',
  'modelSpecificModelLoad',
  'modelSpecificModelUnload',
  'modelSpecificModelDownload',
  'modelSpecificModelDownloadCancel',
  'modelSpecificModelDownloadProgress',
];

const paramsAnonymous = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

async function routerForTest() {
  const { service } = await serviceForTest();
  return { service, router: createHonoRouter(service) };
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = createOpenApiDocument();
    const validator = new Validator();
    const result = await validator.validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken document.
    const broken = structuredClone(doc) as Doc;
    (broken.paths['/conversations']!.get!.responses as Record<string, unknown>)['200'] = { content: 42 };
    expect((await new Validator().validate(broken as Parameters<Validator['validate']>[0])).valid).toBe(false);
  });

  it('describes every route the router serves, and no other', async () => {
    const { router } = await routerForTest();
    const served = new Set(
      router.routes
        .filter((route) => (route.method === 'GET' || route.method === 'POST') && !route.path.includes('*') && !DOCS_ROUTES.has(route.path))
        .map((route) => `${route.method} ${toOpenApiPath(route.path)}`),
    );
    const described = new Set(operationsOf(createOpenApiDocument() as Doc).keys());
    expect([...served].filter((op) => !described.has(op))).toEqual([]);
    expect([...described].filter((op) => !served.has(op))).toEqual([]);
    expect(described.size).toBe(189);
    // The docs routes themselves are served.
    expect(
      router.routes
        .filter((route) => DOCS_ROUTES.has(route.path))
        .map((route) => route.path)
        .sort(),
    ).toEqual([...DOCS_ROUTES].sort());
  });

  it("has every operation of the official client that the service implements, at the client's method and path", () => {
    const client = clientOperations();
    expect(client.size).toBeGreaterThan(300);
    const described = operationsOf(createOpenApiDocument() as Doc);
    const byShape = new Map([...described].map(([key, id]) => [paramsAnonymous(key), id]));
    const missing: string[] = [];
    for (const name of CLIENT_OPERATIONS) {
      const op = client.get(name);
      expect(op, `the client has ${name}`).toBeDefined();
      const key = paramsAnonymous(`${op!.method} ${op!.path}`);
      if (byShape.get(key) !== name) missing.push(`${name}: ${key} (document: ${byShape.get(key) ?? 'nothing'})`);
    }
    expect(missing).toEqual([]);
    // Every operation id of the document is unique, and those the client has mean the same route.
    const ids = [...described.values()];
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, id] of described) {
      const op = client.get(id);
      if (op) expect(paramsAnonymous(`${op.method} ${op.path}`)).toBe(paramsAnonymous(key));
    }
  });

  it('gives every operation an answer and the error body, and every $ref resolves', () => {
    const doc = createOpenApiDocument() as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const statuses = Object.keys(op.responses);
        expect(
          // A change stream answers 101: it becomes a WebSocket.
          statuses.some((s) => s === '200' || s === '204' || s === '101'),
          `${method} ${path}`,
        ).toBe(true);
        expect(statuses, `${method} ${path}`).toEqual(
          expect.arrayContaining(statuses.includes('101') ? ['401', '403', '426'] : ['400', '401', '403']),
        );
        if (method === 'post') expect(statuses).toEqual(expect.arrayContaining(['413', '415']));
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(schemas|responses)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(100);
    for (const [, kind, name] of refs) expect(doc.components[kind as 'schemas'][name!], `${kind}/${name}`).toBeDefined();
    const statuses = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => Object.keys(op.responses))));
    expect([...statuses].sort()).toEqual([
      '101',
      '200',
      '204',
      '400',
      '401',
      '403',
      '404',
      '409',
      '410',
      '413',
      '415',
      '422',
      '426',
      '501',
      '503',
      '507',
    ]);
    // Bodies come from the input schemas: the seed's limits are there.
    const seed = doc.components.schemas.SeededConversation as { required: string[]; properties: Record<string, { maxItems?: number }> };
    expect(seed.required).toEqual(['type']);
    expect(seed.properties.messages?.maxItems).toBeGreaterThan(0);
    expect(doc.paths['/conversations/create']!.post!.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SeededConversation' } } },
    });
  });

  it('is served at /openapi.json, naming where the router is mounted', async () => {
    const { router } = await routerForTest();
    const direct = await router.request('http://127.0.0.1/openapi.json');
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await direct.json()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/' }]);

    const app = new Hono().route('/api', router);
    const mounted = (await (await app.request('http://127.0.0.1/api/openapi.json')).json()) as Doc;
    expect(mounted.servers).toEqual([{ url: '/api' }]);
    const page = await app.request('http://127.0.0.1/api/docs');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('src="docs/swagger-ui-bundle.js"');
    const script = await app.request('http://127.0.0.1/api/docs/swagger-ui-bundle.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    const css = await app.request('http://127.0.0.1/api/docs/swagger-ui.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const unknown = await app.request('http://127.0.0.1/api/docs/..%2Fpackage.json');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    // The web-origin guard covers these routes too.
    const foreign = await app.request('http://127.0.0.1/api/docs', { headers: { origin: 'https://attacker.example' } });
    expect(foreign.status).toBe(403);
  });

  it("describes the service's real answers exactly: they parse with the answer schemas, and carry no field the schemas leave out", async () => {
    const { service, router } = await routerForTest();
    const conversation = await conversationWith(service, said('USER', 'Why is the build slow?'), said('ASSISTANT', 'Cache the deps.'));
    for (const [kind, seed] of Object.entries(seeds)) {
      const create = `create${kind[0]!.toUpperCase()}${kind.slice(1)}` as 'createAnchor';
      await service[create](seed as Parameters<Service['createAnchor']>[0]);
    }
    const annotation = await service.createAnnotation({ ...seeds.annotation, conversation: conversation.id });
    // Answers with links of every kind: each list a record shows once it has one.
    const message = conversation.messages.iterable[0]!.id;
    const [tag, person, event, source, anchor, website] = await Promise.all([
      service.createTag(seeds.tag),
      service.createPerson(seeds.person),
      service.createWorkstreamEvent(seeds.workstreamEvent),
      service.createWorkstreamPatternEngineSource(seeds.workstreamPatternEngineSource),
      service.createAnchor(seeds.anchor),
      service.createWebsite(seeds.website),
    ]);
    await service.associate('messageTags', message, tag.id);
    await service.associate('messagePersons', message, person.id);
    await service.associate('messageWorkstreamEvents', message, event.id);
    await service.associate('messageSources', message, source.id);
    await service.associate('messageAnchors', message, anchor.id);
    await service.associate('messageMessages', message, conversation.messages.iterable[1]!.id);
    await service.associate('messageAnnotations', message, annotation.id);
    await service.associate('annotationTags', annotation.id, tag.id);
    await service.associate('annotationWebsites', annotation.id, website.id);
    await service.associate('conversationSources', conversation.id, source.id);
    /** The answer at `path`, which must be what its schema describes: parsing it drops no field (zod strips unknown ones). */
    const fits = async (name: AnswerName, path: string, status = 200) => {
      const answer = await router.request(`http://127.0.0.1${path}`);
      expect(answer.status, path).toBe(status);
      const body = (await answer.json()) as unknown;
      expect(answerSchemas[name].parse(body), path).toEqual(body);
      return body;
    };
    await fits('Conversation', `/conversation/${conversation.id}`);
    await fits('Conversation', `/conversation/${conversation.id}?transferables=false`);
    await fits('Conversations', '/conversations');
    await fits('ConversationMessages', `/conversation/${conversation.id}/messages?limit=1`);
    const models = (await fits('Models', '/models')) as { iterable: { id: string }[] };
    const model = models.iterable[0]!.id;
    await fits('Model', `/model/${model}`);
    await fits('ModelDownloadProgress', `/model/${model}/download/progress`);
    await fits('Error', '/conversation/nope', 410);
    for (const route of Object.values(RECORD_ROUTES)) {
      const list = (await fits(route.many, `/${route.path}`)) as { iterable: unknown[] };
      expect(list.iterable.length, route.path).toBeGreaterThan(0);
    }
  });
});
