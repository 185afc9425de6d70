/**
 * Where the test run's temp folder goes (test/global-setup.ts makes it). The processes the tests
 * start make unix sockets inside it: tsx its IPC pipe, `$TMPDIR/tsx-<euid>/<pid>.pipe`, in a test
 * file's folder; Chromium its `SingletonSocket`, in a browser's folder (test/helpers/temp-dir.ts,
 * shortTempDir). A socket's path holds at most 107 bytes on Linux (103 on macOS). Chromium refuses
 * a longer one ("Socket path too long"); Node cuts it short without a word, so tsx's pipe lands on
 * a cut path outside the run's folder, stays there, and the next tsx fails with EADDRINUSE.
 *
 * So the run's folder goes in the system's temp folder when every such path fits there, and in
 * /tmp otherwise (a temp folder on every POSIX system, writable by all, which `mkdtemp` makes a
 * private folder in). No other ancestor of `$TMPDIR` is used: that is not a temp folder (it may be
 * the home folder), and writing there is not what `$TMPDIR` allowed.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { PROCESS_TESTS } from '../process-tests.js';

/** The longest path a unix socket may have: `sun_path` less its closing NUL (Linux 108, macOS 104). */
export const SOCKET_PATH_MAX = process.platform === 'darwin' ? 103 : 107;

/** The run's folder is `<parent>/cms-test-run-XXXXXX` (mkdtemp adds six characters). */
export const RUN_PREFIX = 'cms-test-run-';
/** A browser's folder, in the run's folder: `chromium-XXXXXX`. */
export const BROWSER_PREFIX = 'chromium-';
/** What Chromium makes in its temp folder: `org.chromium.Chromium.XXXXXX/SingletonSocket`. */
const CHROMIUM_SOCKET = 'org.chromium.Chromium.XXXXXX/SingletonSocket';
/** Linux's largest process id, 4194304, has seven digits. */
const PID_DIGITS = 7;

/**
 * The length of the longest socket path the tests make when the run's folder is in `parent`:
 * tsx's pipe in the folder of the test file with the longest name among those that start
 * processes (`longestTestFile`, its path from the repository, `test/…`), or Chromium's socket in
 * a browser's folder.
 */
export function longestSocketPath(parent: string, longestTestFile = LONGEST_PROCESS_TEST, euid = process.geteuid?.() ?? 0): number {
  const run = parent.length + `/${RUN_PREFIX}XXXXXX`.length;
  const fileFolder = run + 1 + longestTestFile + '-XXXXXX'.length;
  const tsxPipe = fileFolder + `/tsx-${euid}/`.length + PID_DIGITS + '.pipe'.length;
  const chromium = run + 1 + `${BROWSER_PREFIX}XXXXXX/`.length + CHROMIUM_SOCKET.length;
  return Math.max(tsxPipe, chromium);
}

/** Where the run's folder goes, and, when that is not the system's temp folder, why. */
export interface RunFolderPlace {
  readonly parent: string;
  /** Said at the start of the run (whole sentences) when the folder is not in the system's temp folder, or cannot hold the sockets. */
  readonly note?: string;
}

/**
 * The parent of the run's folder: `system` (the system's temp folder) when every socket path fits
 * there, else `fallback` (/tmp) when it is a writable folder where they fit, else `system` still,
 * with a note saying which tests will fail and what to do.
 */
export function runFolderPlace(
  system: string,
  longestTestFile = LONGEST_PROCESS_TEST,
  fallback = '/tmp',
  canWrite: (folder: string) => boolean = isWritableFolder,
): RunFolderPlace {
  const fits = (parent: string) => longestSocketPath(parent, longestTestFile) <= SOCKET_PATH_MAX;
  if (fits(system)) return { parent: system };
  const tooLong =
    `the system's temp folder (${system}, ${system.length} characters) is too long for the unix sockets ` +
    `the tests' processes make in it (tsx's pipe, Chromium's SingletonSocket: ${SOCKET_PATH_MAX} bytes at most)`;
  if (path.resolve(fallback) !== path.resolve(system) && fits(fallback) && canWrite(fallback)) {
    return { parent: fallback, note: `It is in ${fallback} because ${tooLong}.` };
  }
  return {
    parent: system,
    note:
      `The tests that start tsx or Chromium will fail: ${tooLong}, and ${fallback} is not a writable folder. ` +
      `Set TMPDIR to a folder of at most ${maxParentLength(longestTestFile)} characters.`,
  };
}

/** The longest temp folder path whose run folder holds every socket the tests make. */
export function maxParentLength(longestTestFile = LONGEST_PROCESS_TEST): number {
  return SOCKET_PATH_MAX - longestSocketPath('', longestTestFile);
}

/** The length of the longest path (`test/…/x.test.ts`) of a test file that starts processes: only those start tsx. */
export const LONGEST_PROCESS_TEST = Math.max(...PROCESS_TESTS.map((file) => file.length));

function isWritableFolder(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
