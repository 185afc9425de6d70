/**
 * The sections of `npm run bench` (bench/index.ts), run one after the other: before the first
 * starts, the plan, with each section's estimated duration and the total; then each section as it
 * starts and ends, with the time since the start. A section that needs what this machine lacks
 * (data kept outside the repository) is skipped with one line saying what to provide; one that
 * fails is reported, the sections of its group after it are skipped, and the others still run.
 *
 * Progress goes to stderr; the sections' figures go to stdout (`npm run bench > figures.md`).
 */

/** One section of the benchmark. */
export interface Section {
  /** The group it belongs to: the name BENCH_SKIP takes (`stores`, `search`, …). */
  readonly group: string;
  /** What it measures, in a few words. */
  readonly title: string;
  /**
   * How long it took at the defaults on the project's 2-core machine, in seconds: the estimate
   * printed. Measured by this runner (`done in …`), with `npm run bench` run whole.
   */
  readonly seconds: number;
  /** The environment variables that change its duration: when one is set, its estimate is for the defaults. */
  readonly knobs?: readonly string[];
  /** One line saying why it cannot run here and what to provide, or undefined when it can. */
  readonly unmet?: () => string | undefined;
  readonly run: () => Promise<void>;
}

export interface RunOptions {
  /** The command that runs them, which the first and last lines name. Default `npm run bench`. */
  readonly name?: string;
  /** The groups to leave out. */
  readonly skip?: ReadonlySet<string>;
  /** The environment variable that names the groups to leave out, for the lines that say so. Default `BENCH_SKIP`. */
  readonly skipVariable?: string;
  /** Run after the last section of a group, or after the group stopped on a failure. */
  readonly afterGroup?: Readonly<Record<string, () => Promise<void>>>;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
  readonly now?: () => number;
}

/** `45 s`, `3 min 20 s`, `1 h 5 min`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 || s >= 600 ? `${Math.round(s / 60)} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/** Elapsed time as `m:ss` (or `h:mm:ss`). */
export function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

/** Why each section will not run (left out, or missing something), or undefined for those that will. */
function reasons(sections: readonly Section[], skip: ReadonlySet<string>, skipVariable = 'BENCH_SKIP'): (string | undefined)[] {
  return sections.map((section) => (skip.has(section.group) ? `skipped (${skipVariable}=${section.group})` : section.unmet?.()));
}

/** The plan printed first: each section with its estimate, or why it will not run, and the total. */
export function planLines(
  sections: readonly Section[],
  skip: ReadonlySet<string>,
  env: NodeJS.ProcessEnv,
  { name = 'npm run bench', skipVariable = 'BENCH_SKIP' }: Pick<RunOptions, 'name' | 'skipVariable'> = {},
): string[] {
  const why = reasons(sections, skip, skipVariable);
  const total = sections.reduce((sum, section, i) => sum + (why[i] === undefined ? section.seconds : 0), 0);
  const set = [...new Set(sections.flatMap((section) => section.knobs ?? []))].filter((name) => env[name] !== undefined);
  const lines = [
    `${name}: ${sections.length} sections, about ${duration(total)} in all` +
      ` (each section's estimate is how long it took at the defaults on a busy 2-core machine${set.length > 0 ? `; ${set.join(', ')} set here, so it will differ` : ''}):`,
  ];
  sections.forEach((section, i) => {
    const tag = `[${i + 1}/${sections.length}]`;
    // The reason's first sentence: the whole line, with what to provide, comes where the section would run.
    const reason = why[i]?.split('. ')[0];
    lines.push(`  ${tag} ${section.title}: ${reason === undefined ? `about ${duration(section.seconds)}` : reason}`);
  });
  return lines;
}

/** Runs the sections in order, saying what it does; answers whether every section that ran succeeded. */
export async function runSections(sections: readonly Section[], options: RunOptions = {}): Promise<boolean> {
  const {
    name = 'npm run bench',
    skip = new Set(),
    skipVariable = 'BENCH_SKIP',
    afterGroup = {},
    env = process.env,
    log = (line) => console.error(line),
    now = () => performance.now(),
  } = options;
  const start = now();
  for (const line of planLines(sections, skip, env, { name, skipVariable })) log(line);
  const why = reasons(sections, skip, skipVariable);
  const failedGroups = new Set<string>();
  let ok = true;
  for (const [i, section] of sections.entries()) {
    const tag = `[${i + 1}/${sections.length}] ${section.title}`;
    const reason = failedGroups.has(section.group) ? `skipped, an earlier ${section.group} section failed` : why[i];
    if (reason === undefined) {
      log(`${tag}: started at ${clock(now() - start)}, about ${duration(section.seconds)}`);
      const began = now();
      try {
        await section.run();
        log(`${tag}: done in ${duration((now() - began) / 1000)} (${clock(now() - start)} since the start)`);
      } catch (error) {
        ok = false;
        failedGroups.add(section.group);
        log(`${tag}: FAILED after ${duration((now() - began) / 1000)}: ${(error as Error).message}`);
      }
    } else {
      log(`${tag}: ${reason}`);
    }
    const last = !sections.slice(i + 1).some((next) => next.group === section.group);
    const ranAny = sections.some((other, j) => other.group === section.group && why[j] === undefined);
    if (last && ranAny) await afterGroup[section.group]?.();
  }
  log(`${name}: ${ok ? 'done' : 'done, with failures (above)'} in ${duration((now() - start) / 1000)}.`);
  return ok;
}
