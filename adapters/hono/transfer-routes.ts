import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import { type ExportFormat, type ImportFormat, markdownFileName, type Service, ServiceError } from '../../src/index.js';
import type { RouterEnv } from './errors.js';

/** The export and import routes: this service's own, not the official client's. */
export const TRANSFER_PATHS = { export: '/conversations/export', import: '/conversations/import' } as const;

/** Options of the transfer routes. */
export interface TransferRouteOptions {
  /** The largest import body accepted, in bytes (spooled to the data folder as it comes). Default 1 GiB. */
  readonly maxImportBytes?: number;
}

const CONTENT_TYPES: Record<ExportFormat, string> = { json: 'application/json', markdown: 'text/markdown; charset=utf-8' };

/**
 * Mounts `GET /conversations/export` (the export, streamed as it is read) and `POST
 * /conversations/import` (the body streamed to a file in the data folder, then imported). Mounted
 * after the host, origin and token checks and before the router reads POST bodies whole: an
 * import's body is read here, a chunk at a time, within `maxImportBytes`.
 */
export function mountTransferRoutes(app: Hono<RouterEnv>, service: Service, options: TransferRouteOptions = {}): void {
  app.get(TRANSFER_PATHS.export, async (c) => {
    const format = (c.req.query('format') ?? 'json') as ExportFormat;
    const conversations = c.req.queries('conversation');
    const chunks = service.exportConversations({ format, ...(conversations ? { conversations } : {}) });
    const iterator = chunks[Symbol.asyncIterator]();
    // The first chunk before the answer's status: an unknown conversation is a 404, not a cut stream.
    const first = await iterator.next();
    c.header('Content-Type', CONTENT_TYPES[format]);
    c.header('Content-Disposition', `attachment; filename="${await fileName(service, format, conversations)}"`);
    c.header('Cache-Control', 'no-store');
    const encoder = new TextEncoder();
    let pending: IteratorResult<string> | undefined = first;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = pending ?? (await iterator.next());
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    return c.body(body, 200);
  });

  app.post(TRANSFER_PATHS.import, async (c) => {
    // JSON only, as every POST here: what an HTML form can send (form data, text) is refused.
    const type = c.req.header('content-type');
    if (type === undefined || !/^application\/json\s*(?:;|$)/i.test(type.trim())) {
      throw new ServiceError(
        'UNSUPPORTED_MEDIA_TYPE',
        `An import is sent as Content-Type: application/json, not ${type === undefined ? 'without one' : `"${type}"`}.`,
      );
    }
    const format = (c.req.query('format') ?? 'auto') as ImportFormat | 'auto';
    const maxBytes = options.maxImportBytes ?? 1024 * 1024 * 1024;
    if (Number(c.req.header('content-length')) > maxBytes) {
      c.header('Connection', 'close');
      throw new ServiceError('PAYLOAD_TOO_LARGE', `The import is larger than this service accepts (${maxBytes} bytes).`, {
        limit: maxBytes,
      });
    }
    // Read here: the router's error funnel must not read it again.
    c.set('body', '');
    try {
      const report = await service.importConversations(bodyStream(c), { format, maxBytes });
      return c.json(report, 200);
    } catch (error) {
      // What is left of the body stays unread: the connection must not carry another request.
      c.header('Connection', 'close');
      throw error;
    }
  });
}

/** The request body as a Node stream: under @hono/node-server the request itself. */
function bodyStream(c: Context<RouterEnv>): Readable {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming instanceof Readable && !incoming.readableDidRead) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>) : Readable.from([]);
}

/** The answer's file name: `conversations.json`, `conversations.md`, or one conversation's title. */
async function fileName(service: Service, format: ExportFormat, conversations: readonly string[] | undefined): Promise<string> {
  if (format === 'json' || conversations?.length !== 1) return format === 'json' ? 'conversations.json' : 'conversations.md';
  const { name } = await service.getConversation(conversations[0]!, { transferables: false });
  // Quotes and backslashes are no file names' characters (markdownFileName replaces them): the header stays whole.
  return encodeURIComponent(markdownFileName(name, conversations[0]!, new Set()))
    .replace(/%20/g, ' ')
    .replace(/%28/g, '(')
    .replace(/%29/g, ')');
}

/** The OpenAPI operations of the two routes (see openapi.ts). */
export function transferOperations(): Record<string, Record<string, unknown>> {
  const error = (status: number) => ({ $ref: `#/components/responses/Error${status}` });
  const report = {
    type: 'object',
    required: ['format', 'conversations', 'messages', 'collections'],
    properties: {
      format: { type: 'string', enum: ['json', 'chatgpt', 'openwebui'] },
      conversations: { $ref: '#/components/schemas/ImportCounts' },
      messages: { $ref: '#/components/schemas/ImportCounts' },
      collections: { type: 'object', additionalProperties: { $ref: '#/components/schemas/ImportCounts' } },
    },
  };
  return {
    [TRANSFER_PATHS.export]: {
      get: {
        operationId: 'conversationsExport',
        tags: ['Export and import'],
        summary:
          "Export the records: `json`, this service's lossless format (every record but the trash, one a line; what the import reads back), or `markdown`, the conversations as a person reads them. Streamed as it is read. See docs/export-import.md.",
        parameters: [
          {
            name: 'format',
            in: 'query',
            required: false,
            description: '`json` (default) or `markdown`.',
            schema: { type: 'string', enum: ['json', 'markdown'] },
          },
          {
            name: 'conversation',
            in: 'query',
            required: false,
            description: 'Only this conversation (repeat for more), with its messages, annotations and the records it links to.',
            schema: { type: 'array', items: { type: 'string' } },
            style: 'form',
            explode: true,
          },
        ],
        responses: {
          '200': {
            description: 'The export, streamed.',
            content: { 'application/json': { schema: { type: 'object' } }, 'text/markdown': { schema: { type: 'string' } } },
          },
          '400': error(400),
          '401': error(401),
          '403': error(403),
          '404': error(404),
          '503': error(503),
        },
      },
    },
    [TRANSFER_PATHS.import]: {
      post: {
        operationId: 'conversationsImport',
        tags: ['Export and import'],
        summary:
          "Import a file sent as the body: this service's JSON export (ids kept), ChatGPT's conversations.json or Open WebUI's chat export. Checked whole before anything is written: a bad file or a record stored differently changes nothing. A second import of a file writes nothing. See docs/export-import.md.",
        parameters: [
          {
            name: 'format',
            in: 'query',
            required: false,
            description: '`auto` (default: told from the file), `json`, `chatgpt` or `openwebui`.',
            schema: { type: 'string', enum: ['auto', 'json', 'chatgpt', 'openwebui'] },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: {} } } },
        responses: {
          '200': { description: 'What was written and left unchanged.', content: { 'application/json': { schema: report } } },
          '400': error(400),
          '401': error(401),
          '403': error(403),
          '409': error(409),
          '413': error(413),
          '415': error(415),
          '503': error(503),
          '507': error(507),
        },
      },
    },
  };
}

/** The schema of an import's counts, for the document's components. */
export const IMPORT_COUNTS_SCHEMA = {
  type: 'object',
  required: ['written', 'unchanged'],
  properties: { written: { type: 'integer', minimum: 0 }, unchanged: { type: 'integer', minimum: 0 } },
};
