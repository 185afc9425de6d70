import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ServiceError } from '../errors.js';

/** One value the reader found at one of its paths. */
export interface FoundValue {
  readonly value: unknown;
  /** Its key in its parent: an index in an array, a name in an object. */
  readonly key: string | number | undefined;
  /** How deep its parent is: 0 for the document itself, 1 for a top-level field or item. */
  readonly depth: number;
}

/** How {@link jsonValues} reads a file. */
export interface JsonValuesOptions {
  /** JSONPath-like selectors of the values wanted (`$.*`, `$.records.*`). */
  readonly paths: readonly string[];
  /** The most bytes one value may span: a longer one is refused before it is held whole. */
  readonly maxValueBytes: number;
  /** What the values are called in messages (`record`, `conversation`). */
  readonly what: string;
  /** Where the file stands in messages, e.g. `after record 12 ("…")`: called when one is needed. */
  readonly where: () => string;
  /** Stop after this many values (a look at the file's start). */
  readonly stopAfter?: number;
}

/**
 * The values of a JSON file at `options.paths`, one at a time as the file is read, 64 KiB at a
 * time: a file of gigabytes is never held, only the value being read (at most `maxValueBytes`).
 * A file that is not JSON, or ends before its document does, is refused with INVALID_INPUT saying
 * where (`options.where`). Values are emitted from the parser's own stack, which keeps none of
 * them once emitted.
 */
export async function* jsonValues(file: string, options: JsonValuesOptions): AsyncGenerator<FoundValue> {
  // Loaded at the first import, not with the package: most apps never import a file.
  const { JSONParser } = await import('@streamparser/json');
  const parser = new JSONParser({ paths: [...options.paths], keepStack: false });
  const found: FoundValue[] = [];
  parser.onValue = ({ value, key, stack }) => {
    found.push({ value, key, depth: stack.length - 1 });
  };
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  let fed = 0;
  let lastValueAt = 0;
  let values = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      try {
        parser.write(chunk);
      } catch (error) {
        throw malformed(options, `${(error as Error).message}`, fed);
      }
      fed += chunk.length;
      if (found.length > 0) {
        lastValueAt = fed;
        for (const value of found.splice(0)) {
          yield value;
          if (options.stopAfter !== undefined && ++values >= options.stopAfter) return;
        }
      } else if (fed - lastValueAt > options.maxValueBytes) {
        throw new ServiceError(
          'PAYLOAD_TOO_LARGE',
          `A ${options.what} of the file is larger than ${options.maxValueBytes} bytes (${options.where()}): refused before reading it whole.`,
          { limit: options.maxValueBytes },
        );
      }
    }
    if (!parser.isEnded) {
      try {
        parser.end();
      } catch {
        // What end() says ("ended in mid-parsing") is less than what happened: the file stops short.
      }
      throw malformed(options, 'the file ends before its JSON does (was it cut short?)', fed);
    }
  } finally {
    stream.destroy();
  }
}

const malformed = (options: JsonValuesOptions, why: string, offset: number) =>
  new ServiceError('INVALID_INPUT', `The file is not valid JSON near byte ${offset} (${options.where()}): ${why}`, {
    issues: [{ path: [], message: why }],
    offset,
  });

/** A file's size and time: what says it did not change between two reads. */
export const fileStamp = async (file: string) => {
  const { size, mtimeMs } = await stat(file);
  return { size, mtimeMs };
};

/** CONFLICT when `file` is not as {@link fileStamp} found it: it changed between the check and the writes. */
export async function mustBeUnchanged(file: string, before: { size: number; mtimeMs: number }): Promise<void> {
  const now = await fileStamp(file);
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs) {
    throw new ServiceError(
      'CONFLICT',
      'The file changed while it was being checked: nothing was imported. Import it again once it is complete.',
    );
  }
}
