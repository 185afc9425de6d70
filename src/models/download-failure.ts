import { isNoSpaceError } from '../errors.js';

/**
 * Why a download failed, as a person reads it. The reason starts with a stable phrase a program can
 * match: `disk full`, `checksum mismatch`, `stalled`, `server answered <status>`, `size over`,
 * `size mismatch`, `encoded answer`, `refused`, `resume mismatch`, `connect timeout`,
 * `cannot connect`, `connection lost`, `cannot write`.
 */
export class DownloadFailure extends Error {
  override readonly name = 'DownloadFailure';

  /**
   * @param reason what the progress answer, the log and `models pull` show.
   * @param keepPartial whether the partial file is still good to resume from (a cut connection); when
   *   false its bytes are wrong or take space the disk needs, and it is removed.
   */
  constructor(
    reason: string,
    readonly keepPartial: boolean,
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
}

/** `1,024 bytes`: exact, for sizes a person compares with a model's `bytes.value`. */
export const bytesText = (bytes: number): string => `${bytes.toLocaleString('en-US')} ${bytes === 1 ? 'byte' : 'bytes'}`;

/** `48.5 MiB`: for free space, where the exact count does not help. */
export const mibText = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;

/** `60 s`, `0.3 s`. */
export const secondsText = (ms: number): string => `${ms / 1000} s`;

/**
 * Any other error of a download as a {@link DownloadFailure}: network errors are wrapped where they
 * happen, so what is left comes from the file system. A full disk (`disk full`) removes the partial
 * file, so the store keeps its room; anything else (`cannot write`) keeps it.
 */
export function asDownloadFailure(error: unknown): DownloadFailure {
  if (error instanceof DownloadFailure) return error;
  const message = (error as Error).message;
  if (isNoSpaceError(error)) return new DownloadFailure(`disk full: ${message}`, false, { cause: error });
  return new DownloadFailure(`cannot write: ${message}`, true, { cause: error });
}
