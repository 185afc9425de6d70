import { z } from 'zod';
import { type ErrorCode, SERVICE_VERSION } from '../../src/index.js';
import { answerSchemas, openAnswerObjects } from '../../src/schemas/answers.js';
import { STATUS_BY_CODE } from './errors.js';
import { inputSchemas } from './input-schemas.js';
import type { Route } from './route.js';
import { ROUTES } from './routes.js';
import { STREAM_ROUTES, type StreamRoute } from './stream-routes.js';
import { IMPORT_COUNTS_SCHEMA, transferOperations } from './transfer-routes.js';

/**
 * The OpenAPI 3.1 document of the router, generated from its route table (`routes.ts`), the zod
 * schemas that validate the inputs (`io: 'input'`) and the answers' schemas
 * (`src/schemas/answers.ts`, `io: 'output'`). Operation ids are the official client's method
 * names where the client has the operation.
 */

/** Errors every route can answer (a bad id or query, the token, the origin) and, for POST, those of the body. */
const EVERY_ROUTE: readonly ErrorCode[] = ['INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN'];
const EVERY_POST: readonly ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INSUFFICIENT_STORAGE'];

/** `/conversation/:conversation` → `/conversation/{conversation}`. */
export const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input: a path parameter, query parameter or body the schema refuses, or malformed JSON.',
  401: 'No or wrong `Authorization: Bearer <token>` (only when the service has a token).',
  403: 'A host or web origin the service does not answer, or a record that may not be changed.',
  404: 'No such record.',
  409: 'A record like this already exists, or (a backup) one is being written.',
  410: 'No such conversation (this route alone answers 410 rather than 404).',
  413: 'The request body is larger than the service accepts.',
  415: 'The request body is not `application/json`.',
  422: 'The request is understood but cannot be done now (e.g. no model can run, nothing to summarize, a full conversation).',
  503: 'Stored data this request needs is damaged on disk (DATA_DAMAGED; the body names the file, offset and record): restore or repair it, see the README on recovery.',
  501: 'The store cannot do this (a backup of PostgreSQL): the message says what to use instead (`pg_dump`).',
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
    // Answers may carry more fields than listed (see src/schemas/answers.ts).
    ...(io === 'output' ? { override: openAnswerObjects } : {}),
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

/** The statuses a route documents besides its answer: every route's, then its own, as the router maps their codes. */
function errorStatuses(route: Route): number[] {
  const codes = [...EVERY_ROUTE, ...(route.method === 'post' ? EVERY_POST : []), ...(route.errors ?? [])];
  const statuses = new Set(codes.map((code) => route.statuses?.[code] ?? STATUS_BY_CODE[code]));
  return [...statuses].sort((a, b) => a - b);
}

function operationObject(op: Route): JsonObject {
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
  for (const status of errorStatuses(op)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };

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

/**
 * A change stream: OpenAPI has no WebSockets, so the upgrade is described as the GET it starts as
 * (101 on success), its frames' schema under `x-websocket-frames`.
 */
function streamOperation(stream: StreamRoute): JsonObject {
  const responses: JsonObject = {
    '101': { description: 'Switching Protocols: the WebSocket is open; each text message is a StreamedIdentifiers frame.' },
    '426': {
      description: 'Upgrade Required: a GET without `Upgrade: websocket`.',
      content: { 'application/json': { schema: ref('Error') } },
    },
  };
  for (const status of [401, 403]) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  responses['503'] = {
    description: 'The server has its most streams open (`maxStreams`), or is closing.',
    content: { 'application/json': { schema: ref('Error') } },
  };
  return {
    operationId: stream.operationId,
    tags: [stream.tag],
    summary: stream.summary,
    parameters: [
      {
        name: 'token',
        in: 'query',
        required: false,
        description:
          "The service's token, for a browser (which cannot set headers on a WebSocket); or the subprotocol `bearer.<token as base64url>`.",
        schema: { type: 'string' },
      },
    ],
    responses,
    'x-websocket-frames': ref('StreamedIdentifiers'),
  };
}

/** The frames of a change stream, as the official client's StreamedIdentifiers. */
const STREAMED_IDENTIFIERS_SCHEMA: JsonObject = {
  type: 'object',
  required: ['iterable'],
  properties: {
    iterable: {
      type: 'array',
      items: {
        type: 'object',
        description: "One id, under its kind's field (one of them), and `deleted: true` when it was deleted.",
        properties: {
          conversation: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          conversationMessage: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          annotation: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          model: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          deleted: { type: 'boolean', const: true },
        },
      },
    },
  },
};

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
  for (const op of ROUTES) {
    const path = toOpenApiPath(op.path);
    const item = (paths[path] ??= {});
    if (item[op.method] !== undefined) throw new Error(`Two operations for ${op.method.toUpperCase()} ${path}.`);
    item[op.method] = operationObject(op);
  }
  for (const stream of STREAM_ROUTES) {
    if (paths[stream.path] !== undefined) throw new Error(`Two operations for GET ${stream.path}.`);
    paths[stream.path] = { get: streamOperation(stream) };
  }
  for (const [path, item] of Object.entries(transferOperations())) {
    if (paths[path] !== undefined) throw new Error(`Two path items for ${path}.`);
    paths[path] = item;
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
      schemas: {
        ...componentSchemas(inputSchemas, 'input'),
        ...componentSchemas(answerSchemas, 'output'),
        StreamedIdentifiers: STREAMED_IDENTIFIERS_SCHEMA,
        ImportCounts: IMPORT_COUNTS_SCHEMA,
      },
      responses: errorResponses,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Only when the service is started with a token.' } },
    },
    security: [{}, { bearer: [] }],
  };
}
