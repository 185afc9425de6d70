import { parseArgs } from 'node:util';
import type { Command, CommandInput, FlagSpec } from './command.js';
import { UsageError } from './failures.js';

/** The flag every command takes. */
export const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', description: 'shows this help' };

/**
 * The command line after a command's words, checked against the command's flags and positionals:
 * the input to run it with, or `'help'` when `--help`/`-h` is among the flags (whatever else is
 * wrong, as people add `--help` to a line that failed to learn why).
 *
 * node:util's parseArgs splits the line (`--flag=value`, `-abc`, `--`), in its lenient mode: its
 * strict mode throws errors whose messages are Node's own, written for programmers. The checks are
 * made here instead, on its tokens, each into one {@link UsageError} line.
 */
export function parseCommandLine(command: Command, args: readonly string[]): CommandInput | 'help' {
  const specs: Record<string, FlagSpec> = { ...command.flags, help: HELP_FLAG };
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, { type: spec.type, ...(spec.short ? { short: spec.short } : {}) }]),
  );
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help' && token.value === undefined)) return 'help';

  const strings: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    if (!spec) throw new UsageError(`unknown flag ${token.rawName}`);
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
      flags.add(token.name);
      continue;
    }
    // The next argument is taken as the value even when it is a flag (`--url --port 1`): it was
    // forgotten, not meant. `--url=-odd` still passes one that starts with a dash.
    const forgotten = token.value === undefined || (!token.inlineValue && /^-./.test(token.value));
    if (forgotten) throw new UsageError(`${token.rawName} needs a value${spec.value ? ` (${token.rawName} ${spec.value})` : ''}`);
    strings[token.name] = token.value as string;
    (lists[token.name] ??= []).push(token.value as string);
  }

  const wanted = command.positionals ?? [];
  const name = command.path.join(' ');
  if (positionals.length < wanted.length) throw new UsageError(`${name} needs ${wanted[positionals.length]!.what}`);
  if (positionals.length > wanted.length) throw new UsageError(`unexpected argument "${positionals[wanted.length]}"`);
  return { strings, lists, flags, positionals };
}
