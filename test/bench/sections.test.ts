/**
 * `npm run bench`'s sections (bench/sections.ts): the plan with each section's estimate and the
 * total, each section's start and end with the time since the start, a section that cannot run
 * skipped in one line, and a failure that stops its own group only.
 */
import { expect, it } from 'vitest';
import { clock, duration, runSections, type Section } from '../../bench/sections.js';

/** A clock each section moves on by its `seconds`, as if it took exactly its estimate. */
function fakeClock() {
  let ms = 0;
  return { now: () => ms, advance: (seconds: number) => (ms += seconds * 1000) };
}

function section(
  group: string,
  title: string,
  seconds: number,
  time: ReturnType<typeof fakeClock>,
  log: string[],
  extra: Partial<Section> = {},
): Section {
  return {
    group,
    title,
    seconds,
    run: async () => {
      time.advance(seconds);
      log.push(`ran ${title}`);
    },
    ...extra,
  };
}

it('formats durations and elapsed times', () => {
  expect(duration(42)).toBe('42 s');
  expect(duration(200)).toBe('3 min 20 s');
  expect(duration(780)).toBe('13 min');
  expect(duration(3900)).toBe('1 h 5 min');
  expect(clock(83_000)).toBe('1:23');
  expect(clock(3_723_000)).toBe('1:02:03');
});

it('says the plan with its total, then each section as it starts and ends', async () => {
  const time = fakeClock();
  const log: string[] = [];
  const sections = [section('stores', 'build', 60, time, log), section('search', 'search', 240, time, log)];
  const ok = await runSections(sections, { log: (line) => log.push(line), now: time.now, env: {} });
  expect(ok).toBe(true);
  expect(log).toEqual([
    "npm run bench: 2 sections, about 5 min in all (each section's estimate is how long it took at the defaults on a busy 2-core machine):",
    '  [1/2] build: about 1 min',
    '  [2/2] search: about 4 min',
    '[1/2] build: started at 0:00, about 1 min',
    'ran build',
    '[1/2] build: done in 1 min (1:00 since the start)',
    '[2/2] search: started at 1:00, about 4 min',
    'ran search',
    '[2/2] search: done in 4 min (5:00 since the start)',
    'npm run bench: done in 5 min.',
  ]);
});

it('skips a section whose data is missing with one line, leaves it out of the total, and names the settings that change the estimates', async () => {
  const time = fakeClock();
  const log: string[] = [];
  const unmet = () => 'skipped, no developer chats at /x/dev.jsonl. Provide them; or name another file with SEARCH_DEVCHATS=<file>.';
  const sections = [
    section('stores', 'build', 60, time, log, { knobs: ['BENCH_SIZES'] }),
    section('search', 'search', 240, time, log, { unmet }),
  ];
  await runSections(sections, { log: (line) => log.push(line), now: time.now, env: { BENCH_SIZES: '100' } });
  expect(log[0]).toContain('about 1 min in all');
  expect(log[0]).toContain('BENCH_SIZES set here, so it will differ');
  expect(log[2]).toBe('  [2/2] search: skipped, no developer chats at /x/dev.jsonl');
  expect(log).toContain(`[2/2] search: ${unmet()}`);
  expect(log).not.toContain('ran search');
});

it('leaves out the groups BENCH_SKIP names', async () => {
  const time = fakeClock();
  const log: string[] = [];
  const sections = [section('stores', 'build', 60, time, log), section('search', 'search', 240, time, log)];
  await runSections(sections, { skip: new Set(['stores']), log: (line) => log.push(line), now: time.now, env: {} });
  expect(log).toContain('[1/2] build: skipped (BENCH_SKIP=stores)');
  expect(log).not.toContain('ran build');
  expect(log).toContain('ran search');
});

it('after a failure, skips the rest of its group, cleans the group up, runs the other groups, and answers false', async () => {
  const time = fakeClock();
  const log: string[] = [];
  const cleaned: string[] = [];
  const failing = section('stores', 'build', 60, time, log, {
    run: async () => {
      time.advance(5);
      throw new Error('disk full');
    },
  });
  const sections = [failing, section('stores', 'reads', 60, time, log), section('search', 'search', 240, time, log)];
  const ok = await runSections(sections, {
    log: (line) => log.push(line),
    now: time.now,
    env: {},
    afterGroup: { stores: async () => void cleaned.push('stores') },
  });
  expect(ok).toBe(false);
  expect(log).toContain('[1/3] build: FAILED after 5 s: disk full');
  expect(log).toContain('[2/3] reads: skipped, an earlier stores section failed');
  expect(log).not.toContain('ran reads');
  expect(log).toContain('ran search');
  expect(cleaned).toEqual(['stores']);
  expect(log.at(-1)).toBe('npm run bench: done, with failures (above) in 4 min 5 s.');
});

it('names the command and the variable that leaves groups out, when told (npm run bench:postgres runs its parts with them)', async () => {
  const time = fakeClock();
  const log: string[] = [];
  const sections = [section('stores', 'build', 60, time, log), section('reads', 'reads', 30, time, log)];
  await runSections(sections, {
    name: 'npm run bench:postgres',
    skip: new Set(['reads']),
    skipVariable: 'BENCH_PG_SKIP',
    log: (line) => log.push(line),
    now: time.now,
    env: {},
  });
  expect(log[0]).toMatch(/^npm run bench:postgres: 2 sections, about 1 min in all/);
  expect(log).toContain('[2/2] reads: skipped (BENCH_PG_SKIP=reads)');
  expect(log.at(-1)).toBe('npm run bench:postgres: done in 1 min.');
});
