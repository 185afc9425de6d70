/**
 * Sizes, speeds and durations as people read them. Sizes are in binary units (KiB, MiB, GiB), the
 * ones the service's own messages use and the ones a disk's free space is shown in by `df -h`.
 */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** `0 B`, `512 B`, `1.5 KiB`, `37.2 MiB`, `812 MiB`, `4.7 GiB`: three significant figures at most, so it reads at a glance. */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  // 1023.97 KiB would show as "1024 KiB": promote once it would round up to 1024.
  while (unit < UNITS.length - 1 && value >= 1023.95) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

/** `12.3 MiB/s`. */
export const formatSpeed = (bytesPerSecond: number): string => `${formatBytes(bytesPerSecond)}/s`;

/** `7s`, `4m 03s`, `2h 05m`: the two largest units, rounded up to the second; `undefined` gives `--` (not known yet). */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '--';
  const whole = Math.ceil(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${two(m)}m`;
  if (m > 0) return `${m}m ${two(s)}s`;
  return `${s}s`;
}
