import type { DownloadProgress } from './models/answers.js';
import { renderProgressLine } from './progress-bar.js';
import { RateMeter } from './rate-meter.js';
import { formatBytes } from './units.js';

/** Shows a download's progress as it is polled. */
export interface ProgressReport {
  /** Shows `progress`, polled at time `at` (milliseconds of a monotonic clock). */
  update(progress: DownloadProgress, at: number): void;
  /** Ends the display (before a final message): a terminal's line is closed. */
  end(): void;
}

/** Statuses that end a download badly: said by the command on stderr, not shown as progress. */
const isBadEnd = (status: DownloadProgress['status']) => status === 'FAILED' || status === 'CANCELED';

/** Erases from the cursor to the end of the line: a shorter line leaves nothing of the longer one before it. */
const ERASE_TO_END = '\x1b[K';

/**
 * For a terminal: one line redrawn in place (`\r`) with a bar, bytes, speed and time left.
 * `columns` is read at each frame, so a resized window is followed.
 */
export function terminalReport(write: (text: string) => void, columns: () => number): ProgressReport {
  const meter = new RateMeter();
  let total: number | undefined;
  let received: number | undefined;
  let drawn = false;
  return {
    update(progress, at) {
      if (isBadEnd(progress.status)) return;
      total = progress.bytesTotal ?? total;
      if (progress.bytesReceived !== undefined) {
        received = progress.bytesReceived;
        meter.add(at, received);
      }
      // COMPLETED carries the file's size (an older server's carries none: the whole of the size last seen).
      if (progress.status === 'COMPLETED') received = total ?? received;
      const speed = meter.bytesPerSecond();
      const frame = {
        percentage: progress.percentage,
        ...(received !== undefined ? { received } : {}),
        ...(total !== undefined ? { total } : {}),
        ...(speed !== undefined ? { bytesPerSecond: speed } : {}),
      };
      write(`\r${renderProgressLine(frame, columns())}${ERASE_TO_END}`);
      drawn = true;
    },
    end() {
      if (drawn) write('\n');
      drawn = false;
    },
  };
}

/** Without a known size, a plain line at most this often: the bytes still grow, and a log should say so now and then. */
const UNSIZED_LINE_MS = 5_000;

/**
 * For a pipe or a file: plain lines, no carriage returns or escapes, one when the status changes,
 * when the percentage reaches another tenth, or (size unknown) every few seconds:
 *
 *     IN-PROGRESS 40%  102.4 KiB / 256.0 KiB
 */
export function plainReport(write: (text: string) => void): ProgressReport {
  let shown: { status: string; tenth: number; at: number } | undefined;
  return {
    update(progress, at) {
      if (isBadEnd(progress.status)) return;
      const { status, percentage, bytesReceived, bytesTotal } = progress;
      const tenth = percentage === null ? -1 : Math.floor(percentage / 10);
      const due = !shown || shown.status !== status || shown.tenth !== tenth || (percentage === null && at - shown.at >= UNSIZED_LINE_MS);
      if (!due) return;
      shown = { status, tenth, at };
      const bytes =
        bytesReceived === undefined
          ? ''
          : `  ${formatBytes(bytesReceived)}${bytesTotal === undefined ? '' : ` / ${formatBytes(bytesTotal)}`}`;
      write(`${status}${percentage === null ? '' : ` ${Math.floor(percentage)}%`}${bytes}\n`);
    },
    end() {},
  };
}
