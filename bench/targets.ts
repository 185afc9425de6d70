/**
 * The table of issue 30's targets, one row per target, in the shape of the README's benchmark
 * section: what ours measured, what it is against (named), the ratio, the target. The sections of
 * `npm run bench` run in processes of their own, so each appends its rows to the file named by
 * BENCH_TARGETS_FILE (one JSON line a row; set by bench/index.ts), and bench/index.ts prints the
 * table from it at the end. A script run alone (`npm run bench:search`) prints its own rows.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** One target's figures. */
export interface TargetRow {
  /** Where it goes in the table (the order of the targets). */
  readonly order: number;
  readonly target: string;
  readonly ours: string;
  /** The baseline, named, and its figure. */
  readonly against: string;
  readonly ratio: string;
  readonly goal: string;
  /** Whether the goal is met; undefined when the row is context, not a target. */
  readonly met?: boolean;
}

const rows: TargetRow[] = [];

/** Keeps `row` for the table: in BENCH_TARGETS_FILE when it is set, else for {@link printTargets} in this process. */
export function recordTarget(row: TargetRow): void {
  const file = process.env.BENCH_TARGETS_FILE;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
  else rows.push(row);
}

/** Prints the table of the rows kept in this process and in `file` (when it exists). */
export function printTargets(file?: string, title = 'Targets (issue 30)'): void {
  const all = [
    ...rows,
    ...(file && existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as TargetRow)
      : []),
  ].sort((a, b) => a.order - b.order);
  if (all.length === 0) return;
  console.log(`\n${title}: each ratio is ours ÷ what the row names, measured in this run (medians of its rounds)`);
  console.log('| target | ours | against | ratio | goal | met |');
  console.log('|---|---|---|---|---|---|');
  for (const row of all)
    console.log(
      `| ${row.target} | ${row.ours} | ${row.against} | ${row.ratio} | ${row.goal} | ${row.met === undefined ? '' : row.met ? 'met' : '**not met**'} |`,
    );
}

/** `×0.93`, or — when either side is missing, or what it is against is not above 0 (a difference measured as none). */
export const times = (ours: number, against: number): string =>
  Number.isFinite(ours) && Number.isFinite(against) && against > 0 ? `×${(ours / against).toFixed(2)}` : '—';

/** 12,345 */
export const count = (value: number, digits = 0): string =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';
