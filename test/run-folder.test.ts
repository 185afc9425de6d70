/**
 * Where the run's temp folder goes (test/helpers/run-folder.ts): under `$TMPDIR` when the unix
 * sockets the tests' processes make there fit in 107 bytes, in /tmp when not, and a clear word when
 * neither works. (Running the suite with a 200-character TMPDIR is what proves the sockets fit.)
 */
import { expect, it } from 'vitest';
import { LONGEST_PROCESS_TEST, longestSocketPath, maxParentLength, runFolderPlace, SOCKET_PATH_MAX } from './helpers/run-folder.js';

const longest = LONGEST_PROCESS_TEST;
const writable = () => true;
const readOnly = () => false;
/** A temp folder path of `length` characters. */
const folderOf = (length: number) => `/${'t'.repeat(length - 1)}`;

it('leaves room under /tmp for every socket the tests make', () => {
  expect(longest).toBeGreaterThanOrEqual('test/runtimes/llama-failures-process.test.ts'.length);
  expect(longestSocketPath('/tmp', longest)).toBeLessThanOrEqual(SOCKET_PATH_MAX);
  expect(maxParentLength(longest)).toBeGreaterThanOrEqual('/tmp'.length);
});

it('keeps the run under TMPDIR when the sockets fit there', () => {
  expect(runFolderPlace('/tmp', longest, '/tmp', writable)).toEqual({ parent: '/tmp' });
  const longestThatFits = folderOf(maxParentLength(longest));
  expect(runFolderPlace(longestThatFits, longest, '/tmp', writable)).toEqual({ parent: longestThatFits });
});

it('moves the run to /tmp when TMPDIR is too long for them, and says why', () => {
  const tooLong = folderOf(maxParentLength(longest) + 1);
  const place = runFolderPlace(tooLong, longest, '/tmp', writable);
  expect(place.parent).toBe('/tmp');
  expect(place.note).toContain(`It is in /tmp because the system's temp folder (${tooLong}, ${tooLong.length} characters) is too long`);

  expect(runFolderPlace(folderOf(200), longest, '/tmp', writable).parent).toBe('/tmp');
});

it('stays under TMPDIR when /tmp cannot be written, and says which tests will fail and what to do', () => {
  const tooLong = folderOf(200);
  const place = runFolderPlace(tooLong, longest, '/tmp', readOnly);
  expect(place.parent).toBe(tooLong);
  expect(place.note).toContain('The tests that start tsx or Chromium will fail');
  expect(place.note).toContain(`Set TMPDIR to a folder of at most ${maxParentLength(longest)} characters.`);
});
