import { z } from 'zod';
import { LINK_KINDS, type LinkKind, SERVICE_VERSION } from '../../src/index.js';
import { answerSchemas } from '../../src/schemas/answers.js';
import {
  conversationSummarizeInputSchema,
  conversationUpdateSchema,
  modelDeleteCacheInputSchema,
  modelUpdateSchema,
  seededAnchorSchema,
  seededAnnotationSchema,
  seededAssetSchema,
  seededConversationMessageSchema,
  seededConversationSchema,
  seededModelSchema,
  seededRangeSchema,
  seededScoreIncrementSchema,
  seededScoreSchema,
  seededWebsiteSchema,
  seededWorkstreamSummarySchema,
} from '../../src/schemas/index.js';
import { LINK_ROUTES, RECORD_ROUTES } from './routes.js';

/**
 * The OpenAPI 3.1 document of the router, generated from the same zod schemas that validate the
 * inputs (`io: 'input'`) and from the answers' schemas (`src/schemas/answers.ts`, `io: 'output'`).
 * Operation ids are the official client's method names where the client has the operation.
 */

type AnswerName = keyof typeof answerSchemas;

/** The request bodies by their name in `#/components/schemas`. */
const inputSchemas = {
  SeededConversation: seededConversationSchema,
  ConversationUpdate: conversationUpdateSchema,
  SeededScore: seededScoreSchema,
  SeededScoreIncrement: seededScoreIncrementSchema,
  ConversationSummarizeInput: conversationSummarizeInputSchema,
  SeededConversationMessage: seededConversationMessageSchema,
  SeededAnchor: seededAnchorSchema,
  SeededAsset: seededAssetSchema,
  SeededWebsite: seededWebsiteSchema,
  SeededRange: seededRangeSchema,
  SeededWorkstreamSummary: seededWorkstreamSummarySchema,
  SeededAnnotation: seededAnnotationSchema,
  SeededModel: seededModelSchema,
  ModelUpdate: modelUpdateSchema,
  ModelDeleteCacheInput: modelDeleteCacheInputSchema,
} as const satisfies Record<string, z.ZodType>;

type InputName = keyof typeof inputSchemas;

/** One route as the document describes it. `path` is written as the router writes it (`:param`). */
export interface OperationSpec {
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  /** Query parameters: `read` = transferables; `list` = transferables, limit, offset. */
  readonly query?: 'read' | 'list';
  /** The JSON body; always optional on the wire (an empty body means "no input") unless `required`. */
  readonly body?: { readonly schema: InputName; readonly required?: boolean };
  /** 200 with this schema, 204 (`none`), or 200 text/plain (`text`). */
  readonly answer: AnswerName | 'none' | 'text';
  /** Statuses this route answers besides 400/401/403 (and 413/415 for POST). */
  readonly errors?: readonly number[];
}

const NOT_FOUND = [404];
const MODEL_ERRORS = [404, 422];

/** The client's operation names for the link routes, by kind and verb. */
const LINK_OPERATION_IDS: Readonly<Record<LinkKind, Readonly<Record<string, string>>>> = {
  anchor: { associate: 'conversationAssociateAnchor', disassociate: 'conversationDisassociateAnchor', delete: 'conversationDeleteAnchor' },
  asset: { associate: 'conversationAssociateAsset', disassociate: 'conversationDisassociateAsset', delete: 'conversationDeleteAsset' },
  website: { associate: 'conversationAssociateWebsite', disassociate: 'conversationDisassociateWebsite' },
  workstreamSummary: {
    associate: 'conversationAssociateWorkstreamSummary',
    disassociate: 'conversationDisassociateWorkstreamSummary',
  },
  groundingRange: {
    associate: 'conversationAssociateGroundingTemporalRangeWorkstream',
    disassociate: 'conversationDisassociateGroundingTemporalRangeWorkstream',
  },
  groundingMessage: {
    associate: 'conversationGroundingMessagesAssociateMessage',
    disassociate: 'conversationGroundingMessagesDisassociateMessage',
  },
};

/** How the summaries name each link kind. */
const LINK_LABELS: Readonly<Record<LinkKind, string>> = {
  anchor: 'an anchor',
  asset: 'an asset',
  website: 'a website',
  workstreamSummary: 'a workstream summary',
  groundingRange: 'a grounding range (temporal workstreams)',
  groundingMessage: 'a grounding message',
};

/** The client's operation names and the schemas of the record routes, by record kind. */
const RECORD_OPERATIONS: Readonly<
  Record<
    keyof typeof RECORD_ROUTES,
    { create: string; list: string; delete: string; seed: InputName; one: AnswerName; many: AnswerName; tag: string }
  >
> = {
  anchors: {
    create: 'anchorsCreateNewAnchor',
    list: 'anchorsSnapshot',
    delete: 'anchorsDeleteSpecificAnchor',
    seed: 'SeededAnchor',
    one: 'Anchor',
    many: 'Anchors',
    tag: 'Anchors',
  },
  assets: {
    create: 'assetsCreateNewAsset',
    list: 'assetsSnapshot',
    delete: 'assetsDeleteAsset',
    seed: 'SeededAsset',
    one: 'Asset',
    many: 'Assets',
    tag: 'Assets',
  },
  websites: {
    create: 'websitesCreateNewWebsite',
    list: 'websitesSnapshot',
    delete: 'websitesDeleteSpecificWebsite',
    seed: 'SeededWebsite',
    one: 'Website',
    many: 'Websites',
    tag: 'Websites',
  },
  ranges: {
    create: 'rangesCreateNewRange',
    list: 'rangesSnapshot',
    delete: 'rangesDeleteSpecificRange',
    seed: 'SeededRange',
    one: 'Range',
    many: 'Ranges',
    tag: 'Ranges',
  },
  workstreamSummaries: {
    create: 'workstreamSummariesCreateNewWorkstreamSummary',
    list: 'workstreamSummariesSnapshot',
    delete: 'workstreamSummariesDeleteSpecificWorkstreamSummary',
    seed: 'SeededWorkstreamSummary',
    one: 'WorkstreamSummary',
    many: 'WorkstreamSummaries',
    tag: 'Workstream summaries',
  },
  annotations: {
    create: 'annotationsCreateNewAnnotation',
    list: 'annotationsSnapshot',
    delete: 'annotationsDeleteSpecificAnnotation',
    seed: 'SeededAnnotation',
    one: 'Annotation',
    many: 'Annotations',
    tag: 'Annotations',
  },
};

/** Every route of `createHonoRouter`, except the document and the docs page themselves. */
export function describedOperations(): OperationSpec[] {
  const ops: OperationSpec[] = [
    {
      method: 'get',
      path: '/.well-known/health',
      operationId: 'getWellKnownHealth',
      tag: 'Well known',
      summary: 'Is the service up? Answers `ok`.',
      answer: 'text',
    },
    {
      method: 'get',
      path: '/.well-known/version',
      operationId: 'getWellKnownVersion',
      tag: 'Well known',
      summary: "The service's version.",
      answer: 'text',
    },

    {
      method: 'post',
      path: '/conversations/create',
      operationId: 'conversationsCreateSpecificConversation',
      tag: 'Conversations',
      summary: 'Create a conversation, with its first messages and links if given.',
      query: 'read',
      body: { schema: 'SeededConversation', required: true },
      answer: 'Conversation',
      errors: [422],
    },
    {
      method: 'get',
      path: '/conversations',
      operationId: 'conversationsSnapshot',
      tag: 'Conversations',
      summary: 'List the conversations (paged with limit and offset).',
      query: 'list',
      answer: 'Conversations',
    },
    {
      method: 'post',
      path: '/conversations/:conversation/delete',
      operationId: 'conversationsDeleteSpecificConversation',
      tag: 'Conversations',
      summary: 'Delete a conversation and its messages.',
      answer: 'none',
      errors: NOT_FOUND,
    },
    {
      method: 'post',
      path: '/conversation/update',
      operationId: 'conversationUpdate',
      tag: 'Conversation',
      summary: "Change a conversation's name, favorite, type, model, application, pipeline, demo or deleted.",
      query: 'read',
      body: { schema: 'ConversationUpdate', required: true },
      answer: 'Conversation',
      errors: NOT_FOUND,
    },
    {
      method: 'get',
      path: '/conversation/:conversation',
      operationId: 'conversationGetSpecificConversation',
      tag: 'Conversation',
      summary: 'One conversation with its messages. An unknown conversation answers 410, as the API declares.',
      query: 'read',
      answer: 'Conversation',
      errors: [410],
    },
    {
      method: 'get',
      path: '/conversation/:conversation/messages',
      operationId: 'conversationSpecificConversationMessages',
      tag: 'Conversation',
      summary: "A conversation's messages, in order (paged with limit and offset).",
      query: 'list',
      answer: 'ConversationMessages',
      errors: NOT_FOUND,
    },
    {
      method: 'post',
      path: '/conversation/:conversation/rename',
      operationId: 'conversationSpecificConversationRename',
      tag: 'Conversation',
      summary: 'Name a conversation from its messages.',
      query: 'read',
      answer: 'Conversation',
      errors: [404, 422],
    },
    {
      method: 'post',
      path: '/conversation/:conversation/summarize',
      operationId: 'conversationSummarize',
      tag: 'Conversation',
      summary: 'Summarize a conversation (or some of its messages) into a SUMMARY annotation.',
      body: { schema: 'ConversationSummarizeInput' },
      answer: 'ConversationSummarizeOutput',
      errors: [404, 422],
    },
    {
      method: 'post',
      path: '/conversation/:conversation/scores/increment',
      operationId: 'conversationScoresIncrement',
      tag: 'Conversation',
      summary: "Add one to each score field set to true in the body's `conversation`.",
      body: { schema: 'SeededScoreIncrement' },
      answer: 'none',
      errors: NOT_FOUND,
    },
  ];

  for (const kind of Object.keys(LINK_KINDS) as LinkKind[]) {
    const route = LINK_ROUTES[kind];
    for (const [verbs, associate] of [
      [route.associate, true],
      [route.disassociate, false],
    ] as const) {
      for (const verb of verbs) {
        const operationId = LINK_OPERATION_IDS[kind][verb];
        if (operationId === undefined) throw new Error(`No operation id for the ${verb} route of ${kind} links.`);
        ops.push({
          method: 'post',
          path: `/conversation/:conversation/${route.path}/${verb}/:target`,
          operationId,
          tag: 'Conversation links',
          summary: `${associate ? 'Link' : 'Unlink'} ${LINK_LABELS[kind]} ${associate ? 'to' : 'from'} a conversation${verb === 'delete' ? ' (the older name of disassociate)' : ''}.`,
          answer: 'none',
          errors: NOT_FOUND,
        });
      }
    }
  }

  ops.push(
    {
      method: 'post',
      path: '/messages/create',
      operationId: 'messagesCreateSpecificMessage',
      tag: 'Messages',
      summary: 'Add a message at the end of its conversation.',
      query: 'read',
      body: { schema: 'SeededConversationMessage', required: true },
      answer: 'ConversationMessage',
      errors: [404, 422],
    },
    {
      method: 'post',
      path: '/messages/:message/delete',
      operationId: 'messagesDeleteSpecificMessage',
      tag: 'Messages',
      summary: 'Delete a message.',
      answer: 'none',
      errors: NOT_FOUND,
    },
  );

  for (const [key, route] of Object.entries(RECORD_ROUTES) as [
    keyof typeof RECORD_ROUTES,
    (typeof RECORD_ROUTES)[keyof typeof RECORD_ROUTES],
  ][]) {
    const op = RECORD_OPERATIONS[key];
    ops.push(
      {
        method: 'post',
        path: `/${route.path}/create`,
        operationId: op.create,
        tag: op.tag,
        summary: `Create ${op.one === 'Anchor' || op.one === 'Asset' || op.one === 'Annotation' ? 'an' : 'a'} ${op.one}.`,
        query: 'read',
        body: { schema: op.seed, required: true },
        answer: op.one,
        errors: [404, 422],
      },
      {
        method: 'get',
        path: `/${route.path}`,
        operationId: op.list,
        tag: op.tag,
        summary: `List the ${op.tag.toLowerCase()} (paged with limit and offset).`,
        query: 'list',
        answer: op.many,
      },
      {
        method: 'post',
        path: `/${route.path}/:id/delete`,
        operationId: op.delete,
        tag: op.tag,
        summary: `Delete ${op.one === 'Anchor' || op.one === 'Asset' || op.one === 'Annotation' ? 'an' : 'a'} ${op.one}.`,
        answer: 'none',
        errors: NOT_FOUND,
      },
    );
  }

  ops.push(
    {
      method: 'get',
      path: '/models',
      operationId: 'modelsSnapshot',
      tag: 'Models',
      summary: 'List the models: built in, offered by the runtimes, and created.',
      answer: 'Models',
    },
    {
      method: 'post',
      path: '/models/create',
      operationId: 'modelsCreateNewModel',
      tag: 'Models',
      summary: 'Create a custom model.',
      body: { schema: 'SeededModel', required: true },
      answer: 'Model',
      errors: [409],
    },
    {
      method: 'post',
      path: '/models/unload',
      operationId: 'unloadModels',
      tag: 'Models',
      summary: 'Unload every loaded model.',
      answer: 'none',
    },
    {
      method: 'post',
      path: '/models/:model/delete',
      operationId: 'modelsDeleteSpecificModel',
      tag: 'Models',
      summary: 'Delete a custom model.',
      answer: 'none',
      errors: NOT_FOUND,
    },
    {
      method: 'get',
      path: '/model/:model',
      operationId: 'modelsSpecificModelSnapshot',
      tag: 'Model',
      summary: 'One model.',
      answer: 'Model',
      errors: NOT_FOUND,
    },
    {
      method: 'post',
      path: '/model/update',
      operationId: 'modelUpdate',
      tag: 'Model',
      summary: "Change a custom model's fields.",
      body: { schema: 'ModelUpdate', required: true },
      answer: 'Model',
      errors: MODEL_ERRORS,
    },
    {
      method: 'post',
      path: '/model/:model/load',
      operationId: 'modelSpecificModelLoad',
      tag: 'Model',
      summary: 'Load a model into memory.',
      answer: 'Model',
      errors: MODEL_ERRORS,
    },
    {
      method: 'post',
      path: '/model/:model/unload',
      operationId: 'modelSpecificModelUnload',
      tag: 'Model',
      summary: "Free a model's memory.",
      answer: 'Model',
      errors: MODEL_ERRORS,
    },
    {
      method: 'post',
      path: '/model/:model/download',
      operationId: 'modelSpecificModelDownload',
      tag: 'Model',
      summary: "Start downloading a model's file.",
      answer: 'Model',
      errors: MODEL_ERRORS,
    },
    {
      method: 'post',
      path: '/model/:model/download/cancel',
      operationId: 'modelSpecificModelDownloadCancel',
      tag: 'Model',
      summary: "Cancel a model's download.",
      answer: 'Model',
      errors: MODEL_ERRORS,
    },
    {
      method: 'get',
      path: '/model/:model/download/progress',
      operationId: 'modelSpecificModelDownloadProgress',
      tag: 'Model',
      summary: "Where a model's download stands.",
      answer: 'ModelDownloadProgress',
      errors: NOT_FOUND,
    },
    {
      method: 'post',
      path: '/models/:model/delete/cache',
      operationId: 'modelsDeleteSpecificModelCache',
      tag: 'Models',
      summary: "Delete a model's downloaded file.",
      body: { schema: 'ModelDeleteCacheInput' },
      answer: 'ModelDeleteCacheOutput',
      errors: MODEL_ERRORS,
    },
  );
  return ops;
}

/** `/conversation/:conversation` → `/conversation/{conversation}`. */
export const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input: a path parameter, query parameter or body the schema refuses, or malformed JSON.',
  401: 'No or wrong `Authorization: Bearer <token>` (only when the service has a token).',
  403: 'A host or web origin the service does not answer, or a record that may not be changed.',
  404: 'No such record.',
  409: 'A record like this already exists.',
  410: 'No such conversation (this route alone answers 410 rather than 404).',
  413: 'The request body is larger than the service accepts.',
  415: 'The request body is not `application/json`.',
  422: 'The request is understood but cannot be done now (e.g. no model can run, nothing to summarize, a full conversation).',
  507: 'The disk is full: nothing of the write was kept; reads go on, and writing works again once space is freed.',
};

type JsonObject = Record<string, unknown>;

/** Converts a registry of named schemas to `#/components/schemas` entries. */
function componentSchemas(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: converted } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  const out: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(converted)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject;
    out[id] = rest;
  }
  return out;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const QUERY_PARAMETERS = {
  transferables: {
    name: 'transferables',
    in: 'query',
    required: false,
    description: 'With `false`, message and format fragments leave out their text (`fragment.string`). Default: true.',
    schema: { type: 'boolean' },
  },
  limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'At most this many items in the page.',
    schema: { type: 'integer', minimum: 0 },
  },
  offset: {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'Skip this many items (see `next` in the answer).',
    schema: { type: 'integer', minimum: 0 },
  },
};

function operationObject(op: OperationSpec): JsonObject {
  const parameters: JsonObject[] = [];
  for (const match of op.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
    parameters.push({
      name: match[1],
      in: 'path',
      required: true,
      description: 'A record id.',
      schema: { type: 'string', minLength: 1, maxLength: 512 },
    });
  }
  if (op.query === 'read' || op.query === 'list') parameters.push(QUERY_PARAMETERS.transferables);
  if (op.query === 'list') parameters.push(QUERY_PARAMETERS.limit, QUERY_PARAMETERS.offset);

  const responses: JsonObject = {};
  if (op.answer === 'none') responses['204'] = { description: 'Done.' };
  else if (op.answer === 'text') responses['200'] = { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } };
  else {
    const ok: JsonObject = { description: 'OK', content: { 'application/json': { schema: ref(op.answer) } } };
    if (op.query === 'list') {
      ok.headers = { Link: { description: 'When there is more: `<path?offset=N>; rel="next"` (RFC 8288).', schema: { type: 'string' } } };
    }
    responses['200'] = ok;
  }
  const statuses = new Set([400, 401, 403, ...(op.method === 'post' ? [413, 415, 507] : []), ...(op.errors ?? [])]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }

  const operation: JsonObject = { operationId: op.operationId, tags: [op.tag], summary: op.summary };
  if (parameters.length > 0) operation.parameters = parameters;
  if (op.body) {
    operation.requestBody = {
      required: op.body.required ?? false,
      content: { 'application/json': { schema: ref(op.body.schema) } },
    };
  }
  operation.responses = responses;
  return operation;
}

let cached: JsonObject | undefined;

/**
 * The OpenAPI 3.1 document of `createHonoRouter`'s routes. `serverUrl` is where the router is
 * mounted (default `/`). The result is a fresh object each call.
 */
export function createOpenApiDocument(serverUrl = '/'): JsonObject {
  cached ??= buildDocument();
  return { ...structuredClone(cached), servers: [{ url: serverUrl }] };
}

function buildDocument(): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const op of describedOperations()) {
    const path = toOpenApiPath(op.path);
    const item = (paths[path] ??= {});
    if (item[op.method] !== undefined) throw new Error(`Two operations for ${op.method.toUpperCase()} ${path}.`);
    item[op.method] = operationObject(op);
  }
  const errorResponses: JsonObject = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    errorResponses[`Error${status}`] = { description, content: { 'application/json': { schema: ref('Error') } } };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Conversation model service',
      version: SERVICE_VERSION,
      description:
        "The conversation and model part of the Pieces OS local API. Operation ids are the official client's method names. " +
        'Every request may carry `Authorization: Bearer <token>` (required when the service has a token). ' +
        'Browser pages may only call the service from origins it allows, so this page cannot send requests ("Try it out" is off): use the official client, curl, or an allowed origin.',
    },
    paths,
    components: {
      schemas: { ...componentSchemas(inputSchemas, 'input'), ...componentSchemas(answerSchemas, 'output') },
      responses: errorResponses,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Only when the service is started with a token.' } },
    },
    security: [{}, { bearer: [] }],
  };
}
