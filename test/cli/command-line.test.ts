/**
 * The command line's pure parts: the parser (flags, values, positionals, `--help`) and its
 * one-line usage errors, ports, the server's address from flags and environment, the help made
 * from the same specs as the parser, and the tables of `models list`, `ps` and `show`.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from '../../adapters/cli/command.js';
import { UsageError } from '../../adapters/cli/failures.js';
import { helpText, usageLine } from '../../adapters/cli/help.js';
import { failureLines, listRows } from '../../adapters/cli/models/list.js';
import { psRows } from '../../adapters/cli/models/ps.js';
import { showRows } from '../../adapters/cli/models/show.js';
import { parseCommandLine } from '../../adapters/cli/parse.js';
import { parsePort } from '../../adapters/cli/port.js';
import { program } from '../../adapters/cli/program.js';
import { connectableHost, serverUrl } from '../../adapters/cli/server-address.js';
import { formatTable } from '../../adapters/cli/table.js';

const fake: Command = {
  path: ['fake'],
  summary: 'A command for the tests.',
  positionals: [{ name: 'model', what: 'a model id' }],
  flags: {
    port: { type: 'string', short: 'p', value: 'N', description: 'a port' },
    verbose: { type: 'boolean', description: 'says more' },
  },
  async run() {},
};

/** The UsageError's message that `fn` throws. */
function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no UsageError thrown');
}

describe('parseCommandLine', () => {
  it.each([
    [['m', '--port', '1', '--verbose'], { port: '1' }, ['verbose'], ['m'], { port: ['1'] }],
    [['--port=2', 'm'], { port: '2' }, [], ['m'], { port: ['2'] }],
    [['-p3', 'm'], { port: '3' }, [], ['m'], { port: ['3'] }],
    // The last value wins; every value is kept in order for a flag a command repeats.
    [['m', '--port', '4', '--port', '5'], { port: '5' }, [], ['m'], { port: ['4', '5'] }],
    [['--port=-odd', '--', '-m'], { port: '-odd' }, [], ['-m'], { port: ['-odd'] }],
  ])('reads %j', (args, strings, flags, positionals, lists) => {
    const input = parseCommandLine(fake, args);
    expect(input).toEqual({ strings, lists, flags: new Set(flags), positionals });
  });

  it('answers help for --help or -h, whatever else the line holds', () => {
    expect(parseCommandLine(fake, ['--help'])).toBe('help');
    expect(parseCommandLine(fake, ['-h'])).toBe('help');
    expect(parseCommandLine(fake, ['--bogus', 'a', 'b', '--help'])).toBe('help');
  });

  it.each([
    [['m', '--bogus'], 'unknown flag --bogus'],
    [['m', '-z'], 'unknown flag -z'],
    [['m', '--bogus=1'], 'unknown flag --bogus'],
    [['m', '--port'], '--port needs a value (--port N)'],
    [['m', '--port', '--verbose'], '--port needs a value (--port N)'],
    [['m', '-p'], '-p needs a value (-p N)'],
    [['m', '--verbose=yes'], '--verbose takes no value'],
    [['m', '--help=yes'], '--help takes no value'],
    [[], 'fake needs a model id'],
    [['a', 'b'], 'unexpected argument "b"'],
  ])('refuses %j: %s', (args, message) => {
    expect(usageError(() => parseCommandLine(fake, args))).toBe(message);
  });
});

describe('ports', () => {
  it('takes 0 to 65535 where any free port is meant, 1 to 65535 to connect to', () => {
    expect(parsePort('0', '--port', true)).toBe(0);
    expect(parsePort('65535', '--port', false)).toBe(65535);
    expect(usageError(() => parsePort('abc', '--port', true))).toBe('--port must be a port number from 0 to 65535, not "abc"');
    expect(usageError(() => parsePort('70000', 'PORT', true))).toBe('PORT must be a port number from 0 to 65535, not "70000"');
    expect(usageError(() => parsePort('8080.5', '--port', true))).toMatch(/not "8080.5"/);
    expect(usageError(() => parsePort('0', '--port', false))).toBe(
      '--port must be a port number from 1 to 65535, not "0" (0, any free port, is for serve)',
    );
  });
});

describe("the server's address", () => {
  it.each([
    [{}, {}, 'http://127.0.0.1:39300'],
    [{}, { PORT: '8080', HOST: '0.0.0.0' }, 'http://127.0.0.1:8080'],
    [{}, { HOST: '::' }, 'http://[::1]:39300'],
    [{}, { HOST: '::1' }, 'http://[::1]:39300'],
    [{}, { HOST: 'models.lan', PORT: '' }, 'http://models.lan:39300'],
    [{ host: 'example.lan', port: '9000' }, { HOST: 'other', PORT: '1' }, 'http://example.lan:9000'],
    [{ port: '9001' }, { HOST: 'from-env' }, 'http://from-env:9001'],
    [{ url: 'https://models.example:8443/base/' }, { PORT: 'not checked' }, 'https://models.example:8443/base'],
  ])('flags %j and environment %j: %s', (flags, env, url) => {
    expect(serverUrl(flags, env)).toBe(url);
  });

  it.each([
    [{ url: 'ftp://x' }, {}, '--url must be an http(s) address such as http://127.0.0.1:39300, not "ftp://x"'],
    [{ url: 'nope' }, {}, '--url must be an http(s) address such as http://127.0.0.1:39300, not "nope"'],
    [{ url: 'http://a', port: '1' }, {}, 'give --url or --host and --port, not both'],
    [{}, { PORT: 'abc' }, 'PORT must be a port number from 1 to 65535, not "abc"'],
    [{ port: '70000' }, {}, '--port must be a port number from 1 to 65535, not "70000"'],
    [{}, { HOST: 'localhost:8080' }, 'HOST must be a host name or address, not "localhost:8080"'],
    [{ host: 'a b' }, {}, '--host must be a host name or address, not "a b"'],
  ])('refuses flags %j and environment %j', (flags, env, message) => {
    expect(usageError(() => serverUrl(flags, env))).toBe(message);
  });

  it('reaches an any-address host on loopback', () => {
    expect(connectableHost('0.0.0.0')).toBe('127.0.0.1');
    expect(connectableHost('[::]')).toBe('[::1]');
    expect(connectableHost('fe80::1')).toBe('[fe80::1]');
    expect(connectableHost('localhost')).toBe('localhost');
  });
});

describe('the help', () => {
  /** Every command of the program, groups included. */
  const all = (command: Command): Command[] => [command, ...(command.commands ?? []).flatMap(all)];

  it('gives every command a usage line from its specs, its flags and --help', () => {
    for (const command of all(program)) {
      const help = helpText(command);
      expect(help.startsWith(`Usage: ${usageLine(command)}\n`), command.path.join(' ')).toBe(true);
      expect(help).toContain('-h, --help');
      for (const name of Object.keys(command.flags ?? {})) expect(help).toContain(`--${name}`);
    }
    expect(usageLine(fake)).toBe('conversation-model-service fake <model> [--port N] [--verbose]');
  });

  it("lists every command in the program's help", () => {
    const help = helpText(program);
    for (const name of ['serve', 'models list', 'models ps', 'models show', 'models pull', 'models stop', 'models rm', 'version']) {
      expect(help).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
  });
});

describe('the tables', () => {
  const models = [
    {
      id: 'builtin',
      name: 'Built in',
      custom: false,
      downloaded: true,
      loaded: true,
      ram: { value: 64 * 1024 * 1024, readable: '64 MiB' },
      cpu: true,
    },
    {
      id: 'big',
      name: 'Big one',
      custom: true,
      downloaded: false,
      downloading: true,
      bytes: { value: 4.7e9, readable: '4.7 GB' },
      loadFailure: { reason: 'killed by SIGABRT', at: '2026-01-01T00:00:00.000Z' },
    },
  ];

  it('aligns columns for a terminal, separates them by tabs for a pipe', () => {
    const rows = [
      ['ID', 'NAME'],
      ['a-long-id', 'x'],
    ];
    expect(formatTable(rows, true)).toBe('ID          NAME\na-long-id   x\n');
    expect(formatTable(rows, false)).toBe('ID\tNAME\na-long-id\tx\n');
  });

  it('lists the models with the columns of old first, then the size, and why they failed below', () => {
    expect(listRows(models)).toEqual([
      ['ID', 'NAME', 'CUSTOM', 'DOWNLOADED', 'LOADED', 'SIZE'],
      ['builtin', 'Built in', 'no', 'yes', 'yes', '-'],
      ['big', 'Big one', 'yes', 'downloading', 'failed', '4.4 GiB'],
    ]);
    expect(failureLines(models)).toEqual(['big failed to load (2026-01-01T00:00:00.000Z): killed by SIGABRT']);
  });

  it('shows the loaded models only in ps', () => {
    expect(psRows(models)).toEqual([
      ['ID', 'NAME', 'SIZE', 'RAM', 'PROCESSOR'],
      ['builtin', 'Built in', '-', '64.0 MiB', 'CPU'],
    ]);
    expect(psRows([])).toEqual([['ID', 'NAME', 'SIZE', 'RAM', 'PROCESSOR']]);
  });

  it("shows one model's set fields, each on one line", () => {
    const rows = showRows({ ...models[1]!, description: 'Two\nlines', maxTokens: { input: 4096, output: 1024 } });
    expect(rows).toEqual([
      ['id', 'big'],
      ['name', 'Big one'],
      ['description', 'Two lines'],
      ['max tokens', 'input 4096, output 1024'],
      ['size', '4.4 GiB'],
      ['custom', 'yes'],
      ['downloaded', 'downloading'],
      ['load failure', 'killed by SIGABRT (2026-01-01T00:00:00.000Z)'],
    ]);
  });
});
