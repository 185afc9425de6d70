/**
 * The two ways a command ends badly, each with its exit status: the command line was wrong (2, as
 * the shell's own builtins and most tools answer misuse), or the work failed (1). Both are one line
 * for a person to read; neither shows a stack, since nothing here is a bug of the command.
 */

/** The command line itself is wrong: an unknown command or flag, a missing or extra argument, a bad value. Exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The command was understood but could not be done: the server is unreachable, a model unknown, a download failed. Exit status 1. */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
}
