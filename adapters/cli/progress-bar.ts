import { formatBytes, formatDuration, formatSpeed } from './units.js';

/** What one frame of a download's progress shows. */
export interface ProgressFrame {
  /** 0–100; `null` while the size is unknown. */
  readonly percentage: number | null;
  /** The bytes received so far, when the server says. */
  readonly received?: number;
  /** The whole size, when known. */
  readonly total?: number;
  /** The current speed, once measured. */
  readonly bytesPerSecond?: number;
}

/** The bar's width bounds, in cells: narrower is unreadable, wider tells nothing more. */
const MIN_BAR = 10;
const MAX_BAR = 40;

/** The bar itself: `████████░░░░`, `width` cells filled in proportion to `percentage`. */
export function bar(percentage: number, width: number): string {
  const filled = Math.round((Math.min(100, Math.max(0, percentage)) / 100) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

/** The time left at the current speed, in seconds, or `undefined` when it cannot be told. */
export function secondsLeft(frame: ProgressFrame): number | undefined {
  const { received, total, bytesPerSecond } = frame;
  if (received === undefined || total === undefined || !bytesPerSecond || bytesPerSecond <= 0) return undefined;
  return Math.max(0, total - received) / bytesPerSecond;
}

/**
 * One line of a download's progress for a terminal `columns` wide:
 *
 *    42% ████████░░░░░░░░░░░░  1.9 GiB / 4.7 GiB  71.0 MiB/s  ETA 39s
 *
 * Parts not known yet show as `--`. The bar takes what width is left (within bounds) and is left
 * out on a terminal too narrow for it; the line never reaches the last column, where a terminal
 * would wrap it and break the redraw in place.
 */
export function renderProgressLine(frame: ProgressFrame, columns: number): string {
  const { percentage, received, total, bytesPerSecond } = frame;
  const amount =
    received === undefined ? '--' : total === undefined ? `${formatBytes(received)}` : `${formatBytes(received)} / ${formatBytes(total)}`;
  const speed = bytesPerSecond === undefined ? '--/s' : formatSpeed(bytesPerSecond);
  const tail = `  ${amount}  ${speed}  ETA ${formatDuration(secondsLeft(frame))}`;
  if (percentage === null) return `  ?%${tail}`.slice(0, Math.max(0, columns - 1));
  const head = `${String(Math.floor(percentage)).padStart(3)}% `;
  const room = columns - 1 - head.length - tail.length;
  if (room < MIN_BAR) return `${head.trimEnd()}${tail}`.slice(0, Math.max(0, columns - 1));
  return `${head}${bar(percentage, Math.min(MAX_BAR, room))}${tail}`;
}
