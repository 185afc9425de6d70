import { ServiceError } from '../errors.js';
import { EXPORT_FORMAT, type ImportFormat } from './format.js';
import { jsonValues } from './json-values.js';

/** The most bytes read to tell a file's format: its first value (a field, or the first conversation). */
const DETECT_BYTES = 256 * 1024 * 1024;

/**
 * The format of an import file, from its first value: this service's export starts with
 * `"format": "conversation-model-service"`; ChatGPT's `conversations.json` is an array of objects
 * with a `mapping`; Open WebUI's export, an array of objects with a `chat`. Anything else (an
 * empty array included: name its format) is INVALID_INPUT.
 */
export async function detectFormat(file: string): Promise<ImportFormat> {
  for await (const found of jsonValues(file, {
    paths: ['$.*'],
    maxValueBytes: DETECT_BYTES,
    what: 'value',
    where: () => 'at its start',
    stopAfter: 1,
  })) {
    const value = found.value as Record<string, unknown> | null;
    if (found.key === 'format' && value === (EXPORT_FORMAT as unknown)) return 'json';
    if (typeof found.key === 'number' && typeof value === 'object' && value !== null) {
      if ('mapping' in value) return 'chatgpt';
      if ('chat' in value) return 'openwebui';
    }
    break;
  }
  return unknown();
}

function unknown(): never {
  throw new ServiceError(
    'INVALID_INPUT',
    `The file is in no format this service imports: not an export of this service (it starts with "format": "${EXPORT_FORMAT}"), nor ChatGPT's conversations.json, nor Open WebUI's chat export. Name the format if it is one of them.`,
  );
}
