import os from 'node:os';
import { ServiceError } from '../errors.js';
import type { Repository } from '../ports.js';
import type { Timestamp } from '../records.js';
import { detectFormat } from './detect.js';
import { exportJson } from './export-json.js';
import type { ExportOptions, ImportOptions, ImportReport } from './format.js';
import { importForeign } from './import-foreign.js';
import { importJson } from './import-json.js';
import { exportMarkdown } from './markdown.js';
import { removeSpooled, spool } from './spool.js';

export { markdownFileName } from './file-names.js';
export type { ExportFormat, ExportOptions, ImportFormat, ImportOptions, ImportReport } from './format.js';
export { EXPORT_FORMAT, EXPORT_VERSION, EXPORTED_COLLECTIONS, NOT_EXPORTED } from './format.js';

/** What export and import need of the service. */
export interface TransferContext {
  readonly repository: Repository;
  readonly now: () => Timestamp;
  /** Where a stream to import is spooled (its `.import-spool` folder); default the system's temporary folder. */
  readonly dataDir?: string;
}

/** The default most bytes of an import received as a stream. */
export const DEFAULT_MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/**
 * The export as chunks of text, to write to a file or an HTTP answer as they come (see exportJson
 * and exportMarkdown). Its options are checked at once; an unknown conversation is NOT_FOUND when
 * the first chunk is asked for, before any text.
 */
export function exportConversations(ctx: TransferContext, options: ExportOptions): AsyncIterable<string> {
  const format = (options as { format?: unknown }).format;
  if (format !== 'json' && format !== 'markdown') {
    throw new ServiceError('INVALID_INPUT', `The export format must be "json" or "markdown", not ${JSON.stringify(format)}.`, {
      issues: [{ path: ['format'], message: 'must be json or markdown' }],
    });
  }
  const conversations = options.conversations;
  if (
    conversations !== undefined &&
    (!Array.isArray(conversations) || conversations.some((id) => typeof id !== 'string' || id === '' || id.length > 512))
  ) {
    throw new ServiceError('INVALID_INPUT', 'The conversations to export must be a list of ids.', {
      issues: [{ path: ['conversations'], message: 'must be a list of ids' }],
    });
  }
  return format === 'json'
    ? exportJson(ctx.repository, conversations, new Date(ctx.now().value))
    : exportMarkdown(ctx.repository, conversations);
}

/**
 * Imports a file (`source` a path) or a stream (spooled to a file first, within
 * `options.maxBytes`) in this service's JSON, ChatGPT's or Open WebUI's format. Everything is
 * checked before anything is written: a bad file is one INVALID_INPUT error naming the record,
 * a record stored differently one CONFLICT, and nothing is imported. See importJson and
 * importForeign for how each is written.
 */
export async function importConversations(
  ctx: TransferContext,
  source: string | AsyncIterable<Uint8Array>,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const batch = options.batch ?? 500;
  if (!Number.isInteger(batch) || batch < 1) throw new ServiceError('INVALID_INPUT', `batch must be a positive integer, not ${batch}.`);
  const wanted = options.format ?? 'auto';
  if (!['auto', 'json', 'chatgpt', 'openwebui'].includes(wanted)) {
    throw new ServiceError('INVALID_INPUT', `The import format must be auto, json, chatgpt or openwebui, not ${JSON.stringify(wanted)}.`, {
      issues: [{ path: ['format'], message: 'must be auto, json, chatgpt or openwebui' }],
    });
  }
  const file =
    typeof source === 'string' ? source : await spool(source, ctx.dataDir ?? os.tmpdir(), options.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES);
  try {
    const format = wanted === 'auto' ? await detectFormat(file) : wanted;
    return format === 'json'
      ? await importJson(ctx.repository, file, batch, ctx.now)
      : await importForeign(ctx.repository, file, format, batch, ctx.now);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && typeof source === 'string') {
      throw new ServiceError('NOT_FOUND', `There is no file ${source} to import.`);
    }
    throw error;
  } finally {
    if (file !== source) await removeSpooled(file);
  }
}
