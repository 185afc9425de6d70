#!/usr/bin/env node
/**
 * `conversation-model-service`: the service from the command line, shaped after Ollama's.
 *
 *   conversation-model-service serve [--port N] [--host H] [--data-dir DIR] [--database-url URL] [--log-requests]
 *   conversation-model-service models list | ps | show <model> | pull <model> | stop <model> | rm <model>
 *   conversation-model-service search <query> [--limit N] [--messages]
 *   conversation-model-service store copy --from <dir|url> --to <dir|url> [--from-schema S] [--to-schema S]
 *   conversation-model-service version | --version | --help
 *
 * Every command answers `--help`. A wrong command line is one line on stderr and exit status 2; a
 * failure of the work (server unreachable, unknown model, failed download), one line and 1.
 * The commands are in program.ts; this file finds the one asked for, runs it, and ends the process.
 */
import { type Command, fullName, PROGRAM } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { helpText } from './help.js';
import { parseCommandLine } from './parse.js';
import { program } from './program.js';

/** Runs the command `argv` names: its words lead down the tree of commands, the rest is its arguments. */
async function main(argv: readonly string[]): Promise<void> {
  let command: Command = program;
  try {
    let at = 0;
    for (; command.commands && at < argv.length && !argv[at]!.startsWith('-'); at++) {
      const word = argv[at]!;
      const next = command.commands.find((candidate) => candidate.path.at(-1) === word);
      if (!next) throw new UsageError(`unknown command "${[...command.path, word].join(' ')}"`);
      command = next;
    }
    const input = parseCommandLine(command, argv.slice(at));
    if (input === 'help') process.stdout.write(helpText(command));
    else await command.run(input);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${PROGRAM}: ${error.message} (see ${fullName(command)} --help)\n`);
      process.exit(2);
    }
    if (error instanceof CommandFailure) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    // Anything else is a bug of the command: its stack is what a report needs.
    throw error;
  }
}

// `… | head -1` closes the pipe before the output ends: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

await main(process.argv.slice(2));
