/**
 * The run's temp folder: every test file, and every process it starts, writes its temporary files
 * in a folder of its own inside one folder made for the run (named by `$TMPDIR`, which os.tmpdir(),
 * tsx, npm and Chromium follow; test/setup.ts makes the file's). When the run ends, anything still
 * there fails the run, named by the test file that left it; the run's folder is removed either
 * way, so a run adds nothing to the system's temp folder. Runs side by side, or a benchmark
 * writing `cms-bench-*` folders meanwhile, cannot be mistaken for one another's leftovers.
 *
 * The run's folder is in the system's temp folder unless the unix sockets the tests' processes
 * make inside it would not fit there (a socket path holds at most 107 bytes): then it is in /tmp
 * (test/helpers/run-folder.ts). The start of the run says where it is, and what the tests need from
 * the machine (test/helpers/requirements.ts).
 *
 * Each vitest project loads this file (they extend the root config): the first to start makes the
 * folder, the last to end checks it. The first also compiles the sources into it, for the processes
 * the tests start (test/helpers/compiled-sources.ts).
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMPILED_SOURCES, compileSources } from './helpers/compiled-sources.js';
import { REQUIREMENTS, unmet } from './helpers/requirements.js';
import { RUN_PREFIX, runFolderPlace } from './helpers/run-folder.js';

/** Names the run's folder for test/setup.ts (and the temp folder the system had, for tsx's cache). */
export const RUN_FOLDER = 'CMS_TEST_RUN_TMPDIR';
export const SYSTEM_TMPDIR = 'CMS_TEST_SYSTEM_TMPDIR';
const VARIABLES = ['TMPDIR', 'TMP', 'TEMP', RUN_FOLDER, SYSTEM_TMPDIR, COMPILED_SOURCES] as const;
/** The run's compiled sources (test/helpers/compiled-sources.ts), in its folder; removed before the check for leftovers. */
const COMPILED = 'compiled-sources';

interface Run {
  folder: string;
  /** Settles once the sources are compiled. */
  compiled: Promise<unknown>;
  projects: number;
  saved: Record<string, string | undefined>;
}
const RUN = Symbol.for('conversation-model-service:test-run-tmpdir');
const shared = globalThis as { [RUN]?: Run };

export default async function setup(): Promise<() => void> {
  let run = shared[RUN];
  if (!run) {
    const system = tmpdir();
    const place = runFolderPlace(system);
    const folder = mkdtempSync(path.join(place.parent, RUN_PREFIX));
    const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
    for (const name of ['TMPDIR', 'TMP', 'TEMP', RUN_FOLDER]) process.env[name] = folder;
    process.env[SYSTEM_TMPDIR] = system;
    process.env[COMPILED_SOURCES] = path.join(folder, COMPILED);
    run = shared[RUN] = { folder, compiled: compileSources(path.join(folder, COMPILED)), projects: 0, saved };
    console.log(startMessage(folder, place.note));
  }
  run.projects++;
  const mine = run;
  const teardown = () => {
    if (--mine.projects > 0) return;
    delete shared[RUN];
    for (const [name, value] of Object.entries(mine.saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(path.join(mine.folder, COMPILED), { recursive: true, force: true });
    const left = leftovers(mine.folder);
    rmSync(mine.folder, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0) {
      const message =
        `The tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temp folder (removed now; ` +
        `each test file must remove what it and the processes it starts make there):\n${left.map((line) => `  ${line}`).join('\n')}`;
      console.error(`\n${'!'.repeat(80)}\n${message}\n${'!'.repeat(80)}\n`);
      // vitest reports a teardown that throws ("error during close"); the exit code says it too.
      process.exitCode = 1;
      throw new Error(`${left.length} leftover(s) in the temp folder, listed above`);
    }
  };
  try {
    await mine.compiled;
  } catch (error) {
    // Sources that do not compile fail the run here, with esbuild's message; the run's folder goes.
    teardown();
    throw error;
  }
  return teardown;
}

/** What the run says first: where its temp files go, and what it needs from the machine. */
function startMessage(folder: string, note: string | undefined): string {
  const lines = [
    `This run's temp folder: ${folder} (removed at the end; anything a test leaves there fails the run).`,
    ...(note ? [`  ${note}`] : []),
    'The tests need, beyond Node 20 and `npm ci` (a test whose need is missing is skipped; the end of the run lists each, with why):',
  ];
  for (const requirement of REQUIREMENTS) {
    const missing = unmet(requirement);
    const state = missing
      ? `MISSING (${missing}), so these are skipped`
      : requirement.checkedBy
        ? `checked by the tests that need it, ${requirement.checkedBy}`
        : 'found';
    lines.push(`  - ${requirement.what}: ${state}. Needed by ${requirement.usedBy}.`);
  }
  return `${lines.join('\n')}\n`;
}

/** `test/x.test.ts: name` for each entry a file's folder still holds; empty folders are no leftover. */
function leftovers(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const lines: string[] = [];
  for (const entry of readdirSync(folder)) {
    const full = path.join(folder, entry);
    const file = /^(.+)-[A-Za-z0-9]{6}$/.exec(entry)?.[1];
    if (file?.startsWith('test~') && lstatSync(full).isDirectory()) {
      for (const inner of readdirSync(full)) lines.push(`${file.replaceAll('~', '/')}: ${describe(path.join(full, inner))}`);
    } else {
      lines.push(`(made outside any test file): ${describe(full)}`);
    }
  }
  return lines;
}

function describe(entry: string): string {
  const name = path.basename(entry);
  try {
    return lstatSync(entry).isDirectory() ? `${name}/ (${readdirSync(entry).length} entries)` : name;
  } catch {
    return name;
  }
}
