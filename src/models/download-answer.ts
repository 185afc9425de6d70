import type { IncomingMessage } from 'node:http';
import { bytesText, DownloadFailure } from './download-failure.js';

/** What a checked answer's body is. */
export interface AnswerPlan {
  /** Where the body starts in the file: the resume offset, or 0 when the server sends the whole file. */
  readonly offset: number;
  /** The whole file's size, when the server says (`Content-Length` of a 200, `Content-Range` of a 206). */
  readonly total: number | undefined;
}

/**
 * Checks an answer's headers before a byte of its body is read. A 200 is the whole file, whatever
 * was asked (a server that ignores `Range`: the download starts over from byte 0). A 206 must
 * carry `Content-Range: bytes <from>-<end>/<size>` that starts where the partial file ends and, when
 * the model declares a size, has that size. Answers `'restart'` when a resume (`from` > 0) is not
 * answered so: the caller asks once more for the whole file; never with `from` 0.
 *
 * Throws a {@link DownloadFailure} for any other status, for an encoded body (`Content-Encoding`
 * other than identity: its bytes are not the file's), and for a size other than the declared one.
 */
export function checkAnswer(response: IncomingMessage, from: number, declared: number | undefined): AnswerPlan | 'restart' {
  const status = response.statusCode ?? 0;
  if (status === 416 && from > 0) return 'restart';
  if (status !== 200 && status !== 206) {
    throw new DownloadFailure(`server answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`, true);
  }
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new DownloadFailure(`encoded answer: the server sent Content-Encoding: ${encoding}, not the file as it is`, true);
  }
  const lengthHeader = response.headers['content-length'];
  const length = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  let plan: AnswerPlan = { offset: 0, total: length };
  if (status === 206) {
    const header = response.headers['content-range'];
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header?.trim() ?? '');
    const [start, end] = [Number(range?.[1]), Number(range?.[2])];
    const size = range?.[3] === '*' ? undefined : Number(range?.[3]);
    const fits =
      range !== null &&
      start === from &&
      end >= start &&
      (size === undefined || end < size) &&
      (length === undefined || length === end - start + 1) &&
      (declared === undefined || size === undefined || size === declared);
    if (!fits) {
      if (from > 0) return 'restart';
      throw new DownloadFailure(
        `resume mismatch: asked for the file from byte ${from}, the server sent Content-Range: ${header ?? '(none)'}`,
        false,
      );
    }
    plan = { offset: start, total: size };
  }
  if (declared !== undefined && plan.total !== undefined && plan.total !== declared) {
    throw new DownloadFailure(
      plan.total > declared
        ? `size over the declared ${bytesText(declared)}: the server announces ${bytesText(plan.total)}`
        : `size mismatch: the server announces ${bytesText(plan.total)}, the model declares ${bytesText(declared)}`,
      false,
    );
  }
  return plan;
}
