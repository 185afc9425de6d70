/**
 * What `models pull` draws, as pure functions of numbers: sizes, speeds and times as people read
 * them, the bar's line for a terminal of a given width, the speed measured over samples, and the
 * two reports (redrawn in place for a terminal, plain lines for a pipe). No terminal is needed.
 */
import { describe, expect, it } from 'vitest';
import { bar, renderProgressLine, secondsLeft } from '../../adapters/cli/progress-bar.js';
import { plainReport, terminalReport } from '../../adapters/cli/progress-report.js';
import { RateMeter } from '../../adapters/cli/rate-meter.js';
import { formatBytes, formatDuration, formatSpeed } from '../../adapters/cli/units.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

describe('units', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [MiB - 1, '1.0 MiB'],
    [37.24 * MiB, '37.2 MiB'],
    [100 * MiB, '100 MiB'],
    [812.4 * MiB, '812 MiB'],
    [4.7e9, '4.4 GiB'],
    [3 * 1024 * GiB, '3.0 TiB'],
  ])('formatBytes(%d) is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('formats a speed per second', () => {
    expect(formatSpeed(64 * MiB)).toBe('64.0 MiB/s');
    expect(formatSpeed(512)).toBe('512 B/s');
  });

  it.each([
    [0, '0s'],
    [7.2, '8s'],
    [59.5, '1m 00s'],
    [243, '4m 03s'],
    [7500, '2h 05m'],
    [undefined, '--'],
    [Number.POSITIVE_INFINITY, '--'],
    [-1, '--'],
  ])('formatDuration(%s) is %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('the progress line', () => {
  // A quarter of 4 GiB at 64 MiB/s: 3 GiB left, 48 s.
  const frame = { percentage: 25, received: GiB, total: 4 * GiB, bytesPerSecond: 64 * MiB };
  const tail = '  1.0 GiB / 4.0 GiB  64.0 MiB/s  ETA 48s';

  it('fills the bar in proportion', () => {
    expect(bar(25, 8)).toBe('██░░░░░░');
    expect(bar(100, 4)).toBe('████');
    expect(bar(0, 4)).toBe('░░░░');
    expect(bar(140, 4)).toBe('████');
  });

  it('tells the time left from the speed, when it can', () => {
    expect(secondsLeft(frame)).toBe(48);
    expect(secondsLeft({ ...frame, bytesPerSecond: 0 })).toBeUndefined();
    expect(secondsLeft({ percentage: null, received: 10, bytesPerSecond: 5 })).toBeUndefined();
  });

  it('shows percentage, bar, bytes, speed and time left, one column short of the width', () => {
    const line = renderProgressLine(frame, 80);
    expect(line).toBe(` 25% ${'█'.repeat(9)}${'░'.repeat(25)}${tail}`);
    expect(line).toHaveLength(79);
  });

  it('keeps the bar within 40 cells on a wide terminal, and leaves it out on a narrow one', () => {
    expect(renderProgressLine(frame, 200)).toBe(` 25% ${'█'.repeat(10)}${'░'.repeat(30)}${tail}`);
    expect(renderProgressLine(frame, 50)).toBe(` 25%${tail}`);
    expect(renderProgressLine(frame, 20)).toBe(` 25%${tail}`.slice(0, 19));
  });

  it('shows what is not known yet as --', () => {
    expect(renderProgressLine({ percentage: 0 }, 60)).toBe(`  0% ${'░'.repeat(36)}  --  --/s  ETA --`);
    expect(renderProgressLine({ percentage: null, received: 1536, bytesPerSecond: 512 }, 80)).toBe('  ?%  1.5 KiB  512 B/s  ETA --');
  });
});

describe('RateMeter', () => {
  it('measures bytes per second over the last five seconds, and starts afresh when the count goes down', () => {
    const meter = new RateMeter();
    expect(meter.bytesPerSecond()).toBeUndefined();
    meter.add(0, 0);
    expect(meter.bytesPerSecond()).toBeUndefined();
    meter.add(1_000, 1_000);
    expect(meter.bytesPerSecond()).toBe(1_000);
    meter.add(2_000, 3_000);
    expect(meter.bytesPerSecond()).toBe(1_500);
    // The sample at 0 leaves the window; the one at 1 s still spans it.
    meter.add(6_000, 7_000);
    expect(meter.bytesPerSecond()).toBe(1_200);
    meter.add(7_000, 10);
    expect(meter.bytesPerSecond()).toBeUndefined();
  });
});

describe('the reports', () => {
  const collect = () => {
    const written: string[] = [];
    return { written, write: (text: string) => void written.push(text) };
  };

  it('into a pipe: plain lines at each status and each tenth, with the bytes; none for a failure', () => {
    const { written, write } = collect();
    const report = plainReport(write);
    const at = (n: number) => n * 300;
    report.update({ status: 'INITIALIZED', percentage: 0 }, at(0));
    report.update({ status: 'IN-PROGRESS', percentage: 2, bytesReceived: 20 * KiB, bytesTotal: 1000 * KiB }, at(1));
    report.update({ status: 'IN-PROGRESS', percentage: 8, bytesReceived: 80 * KiB, bytesTotal: 1000 * KiB }, at(2));
    report.update({ status: 'IN-PROGRESS', percentage: 13.5, bytesReceived: 135 * KiB, bytesTotal: 1000 * KiB }, at(3));
    report.update({ status: 'IN-PROGRESS', percentage: 19, bytesReceived: 190 * KiB, bytesTotal: 1000 * KiB }, at(4));
    report.update({ status: 'FAILED', percentage: 19, reason: 'stalled' }, at(5));
    report.end();
    expect(written.join('')).toBe('INITIALIZED 0%\nIN-PROGRESS 2%  20.0 KiB / 1000 KiB\nIN-PROGRESS 13%  135 KiB / 1000 KiB\n');
  });

  it('into a pipe, size unknown: a line at each status, then every five seconds', () => {
    const { written, write } = collect();
    const report = plainReport(write);
    for (let s = 0; s <= 12; s++) report.update({ status: 'IN-PROGRESS', percentage: null, bytesReceived: s * MiB }, s * 1_000);
    report.update({ status: 'COMPLETED', percentage: 100 }, 12_500);
    expect(written).toEqual(['IN-PROGRESS  0 B\n', 'IN-PROGRESS  5.0 MiB\n', 'IN-PROGRESS  10.0 MiB\n', 'COMPLETED 100%\n']);
  });

  it('on a terminal: one line redrawn in place, closed by a newline at the end', () => {
    const { written, write } = collect();
    const report = terminalReport(write, () => 80);
    report.update({ status: 'INITIALIZED', percentage: 0 }, 0);
    report.update({ status: 'IN-PROGRESS', percentage: 25, bytesReceived: GiB, bytesTotal: 4 * GiB }, 1_000);
    report.update({ status: 'IN-PROGRESS', percentage: 50, bytesReceived: 2 * GiB, bytesTotal: 4 * GiB }, 17_000);
    report.update({ status: 'COMPLETED', percentage: 100 }, 18_000);
    report.end();
    report.end();
    expect(written.at(-1)).toBe('\n');
    const frames = written.slice(0, -1);
    expect(frames).toHaveLength(4);
    for (const frame of frames) expect(frame).toMatch(/^\r.*\x1b\[K$/);
    expect(frames[2]).toContain('2.0 GiB / 4.0 GiB  64.0 MiB/s  ETA 32s');
    // A COMPLETED without counts (an older server's): the last total is the whole, and nothing is left.
    expect(frames[3]).toContain('100% ');
    expect(frames[3]).toContain('4.0 GiB / 4.0 GiB  64.0 MiB/s  ETA 0s');
  });
});
