/**
 * What a command of the CLI is: the words that name it, the arguments and flags it takes (from
 * which both its parser and its `--help` are made, so the two cannot disagree), and what it does.
 * A group (the program itself, `models`) is a command with commands under it.
 */

/** A flag a command takes. */
export interface FlagSpec {
  /** `string` flags take a value (`--port 8080`, `--port=8080`); `boolean` ones take none. */
  readonly type: 'string' | 'boolean';
  /** A one-letter alias (`p` for `-p`). */
  readonly short?: string;
  /** The value's name in the usage line and the help (`N`, `DIR`); string flags only. */
  readonly value?: string;
  /** What it does, one short line for the help. */
  readonly description: string;
}

/** A positional argument a command requires. */
export interface PositionalSpec {
  /** Its name in the usage line: `model` shows as `<model>`. */
  readonly name: string;
  /** What it is, for the message when it is missing: `a model id` gives "models pull needs a model id". */
  readonly what: string;
}

/** The command line as a command receives it, checked against its specs. */
export interface CommandInput {
  /** The string flags given, by name (the last one wins when a flag is repeated). */
  readonly strings: Readonly<Record<string, string | undefined>>;
  /** Every value of each string flag given, in order (`--conversation a --conversation b`). */
  readonly lists?: Readonly<Record<string, readonly string[] | undefined>>;
  /** The boolean flags given. */
  readonly flags: ReadonlySet<string>;
  /** The positional arguments, exactly as many as the command's {@link Command.positionals}. */
  readonly positionals: readonly string[];
}

/** A command: `serve`, `models pull`, or a group such as `models`. */
export interface Command {
  /** The words that name it after the program's name: `['models', 'pull']`; `[]` for the program itself. */
  readonly path: readonly string[];
  /** What it does, one line: the help's first line, and its line in its group's list. */
  readonly summary: string;
  /** More of its help, after the flags: environment, behaviour (lines of at most about 100 characters). */
  readonly details?: string;
  readonly positionals?: readonly PositionalSpec[];
  /** Its flags by long name; every command also takes `--help`/`-h`, which need not be listed. */
  readonly flags?: Readonly<Record<string, FlagSpec>>;
  /** The commands under it, for a group. */
  readonly commands?: readonly Command[];
  /** Does the work; throws a UsageError or a CommandFailure for anything a user can cause. */
  run(input: CommandInput): Promise<void>;
}

/** The program's name, as the `bin` of package.json installs it. */
export const PROGRAM = 'conversation-model-service';

/** The command's full name: `conversation-model-service models pull`. */
export const fullName = (command: Command): string => [PROGRAM, ...command.path].join(' ');
