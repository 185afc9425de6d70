/**
 * The command line as a user mistypes it, run as a process: every command answers `--help` with its
 * own usage and exits 0; every wrong line (unknown command or flag, missing or extra argument, a
 * bad port) is one line on stderr naming the help to read, exit status 2, nothing on stdout, and
 * nothing done.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../src/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

const PROGRAM = 'conversation-model-service';

describe('--help', () => {
  it.each([
    [[], ''],
    [['--help'], ''],
    [['-h'], ''],
    [['serve', '--help'], 'serve'],
    [['models', '--help'], 'models'],
    [['models', 'list', '--help'], 'models list'],
    [['models', 'ps', '-h'], 'models ps'],
    [['models', 'show', '--help'], 'models show'],
    [['models', 'pull', '--help'], 'models pull'],
    [['models', 'stop', '--help'], 'models stop'],
    [['models', 'rm', '--help'], 'models rm'],
    [['search', '--help'], 'search'],
    [['backup', '--help'], 'backup'],
    [['version', '--help'], 'version'],
    // Help wins over what else is wrong: a missing model, an unknown flag.
    [['models', 'pull', '--bogus', '--help'], 'models pull'],
  ])('%j prints the usage of "%s" and exits 0', async (args, name) => {
    const run = await runCli(args);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const usage = `Usage: ${[PROGRAM, name].filter(Boolean).join(' ')}`;
    expect([`${usage} `, `${usage}\n`]).toContain(run.stdout.slice(0, usage.length + 1));
    expect(run.stdout).toContain('-h, --help');
  });

  it('shows the flags in the usage lines', async () => {
    expect((await runCli(['serve', '--help'])).stdout).toMatch(/serve \[--port N\] \[--host H\] \[--data-dir DIR\] \[--log-requests\]/);
    expect((await runCli(['models', 'pull', '--help'])).stdout).toMatch(/models pull <model> \[--host H\] \[--port N\] \[--url URL\]/);
    expect((await runCli(['search', '--help'])).stdout).toMatch(
      /search <query> \[--limit N\] \[--messages\] \[--host H\] \[--port N\] \[--url URL\]/,
    );
  });
});

describe('the version', () => {
  it.each([[['--version']], [['-v']], [['version']]])('%j prints it alone', async (args) => {
    expect(await runCli(args)).toEqual({ code: 0, stdout: `${SERVICE_VERSION}\n`, stderr: '' });
  });
});

describe('a wrong command line', () => {
  it.each([
    [['frobnicate'], {}, 'unknown command "frobnicate"', ''],
    [['models', 'frobnicate'], {}, 'unknown command "models frobnicate"', 'models'],
    [['models'], {}, 'models needs a command: list, ps, show, pull, stop or rm', 'models'],
    [['--foo'], {}, 'unknown flag --foo', ''],
    [['models', 'list', '-x'], {}, 'unknown flag -x', 'models list'],
    [['models', 'list', 'extra'], {}, 'unexpected argument "extra"', 'models list'],
    [['models', 'pull'], {}, 'models pull needs a model id or name', 'models pull'],
    [['models', 'pull', 'a', 'b'], {}, 'unexpected argument "b"', 'models pull'],
    [['models', 'show'], {}, 'models show needs a model id or name', 'models show'],
    [['models', 'stop'], {}, 'models stop needs a model id or name', 'models stop'],
    [['models', 'rm'], {}, 'models rm needs a model id or name', 'models rm'],
    [['search'], {}, 'search needs a query', 'search'],
    [['backup'], {}, 'backup needs --out', 'backup'],
    [['search', 'a', '--bogus'], {}, 'unknown flag --bogus', 'search'],
    [['trash'], {}, 'trash needs a command: list, restore or empty', 'trash'],
    [
      ['models', 'list', '--port', '0'],
      {},
      '--port must be a port number from 1 to 65535, not "0" (0, any free port, is for serve)',
      'models list',
    ],
    [['models', 'ps'], { PORT: 'abc' }, 'PORT must be a port number from 1 to 65535, not "abc"', 'models ps'],
    [
      ['models', 'list', '--url', 'ftp://x'],
      {},
      '--url must be an http(s) address such as http://127.0.0.1:39300, not "ftp://x"',
      'models list',
    ],
    [['models', 'list', '--url'], {}, '--url needs a value (--url URL)', 'models list'],
  ])('%j %j: "%s", exit 2', async (args, env, message, command) => {
    const run = await runCli(args, env);
    const help = [PROGRAM, command].filter(Boolean).join(' ');
    expect(run).toEqual({ code: 2, stdout: '', stderr: `${PROGRAM}: ${message} (see ${help} --help)\n` });
  });

  it.each([
    [['--port', 'abc'], {}, '--port must be a port number from 0 to 65535, not "abc"'],
    [['--port', '70000'], {}, '--port must be a port number from 0 to 65535, not "70000"'],
    [['-p', '8080.5'], {}, '--port must be a port number from 0 to 65535, not "8080.5"'],
    [['--port'], {}, '--port needs a value (--port N)'],
    [['--foo'], {}, 'unknown flag --foo'],
    [['--log-requests=yes'], {}, '--log-requests takes no value'],
    [['now'], {}, 'unexpected argument "now"'],
    [[], { PORT: 'abc' }, 'PORT must be a port number from 0 to 65535, not "abc"'],
    [['--trash-days', '40000'], {}, '--trash-days must be a number of days from 0 to 36500, not "40000"'],
    [[], { TRASH_DAYS: 'a week' }, 'TRASH_DAYS must be a number of days from 0 to 36500, not "a week"'],
  ])('serve %j %j: "%s", exit 2, before opening the data folder', async (args, env, message) => {
    const dataDir = path.join(await tempDir(), 'never-made');
    const run = await runCli(['serve', ...args, '--data-dir', dataDir], env);
    expect(run).toEqual({ code: 2, stdout: '', stderr: `${PROGRAM}: ${message} (see ${PROGRAM} serve --help)\n` });
    expect(existsSync(dataDir)).toBe(false);
  });
});
