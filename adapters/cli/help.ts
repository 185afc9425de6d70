import { type Command, type FlagSpec, fullName } from './command.js';
import { HELP_FLAG } from './parse.js';

/** `[--port N]`, `[--log-requests]`: a flag as a usage line shows it. */
const flagUsage = (name: string, spec: FlagSpec) => `[--${name}${spec.value ? ` ${spec.value}` : ''}]`;

/** The command's one-line synopsis: `conversation-model-service models pull <model> [--host H] …`. */
export function usageLine(command: Command): string {
  const parts = [fullName(command)];
  if (command.commands) parts.push('<command>');
  for (const positional of command.positionals ?? []) parts.push(`<${positional.name}>`);
  for (const [name, spec] of Object.entries(command.flags ?? {})) parts.push(flagUsage(name, spec));
  return parts.join(' ');
}

/** The commands under a group, a group's own listed in its place (`models list`, `models ps`, …): the program's help shows them all. */
const leavesOf = (group: Command): Command[] => (group.commands ?? []).flatMap((sub) => (sub.commands ? leavesOf(sub) : [sub]));

/** Rows of two columns, the second aligned two spaces after the widest first cell. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/**
 * The whole help of a command, what `--help` prints: usage, what it does, its commands (a group),
 * its flags, then its details. Made from the same specs as its parser.
 */
export function helpText(command: Command): string {
  const lines = [`Usage: ${usageLine(command)}`, '', command.summary];
  if (command.commands) {
    lines.push('', 'Commands:');
    lines.push(...columns(leavesOf(command).map((leaf) => [leaf.path.slice(command.path.length).join(' '), leaf.summary])));
  }
  const flags = Object.entries({ ...command.flags, help: HELP_FLAG });
  lines.push('', 'Flags:');
  lines.push(
    ...columns(
      flags.map(([name, spec]) => [
        `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.value ? ` ${spec.value}` : ''}`,
        spec.description,
      ]),
    ),
  );
  if (command.details) lines.push('', command.details.trimEnd());
  if (command.commands) lines.push('', `Run ${fullName(command)} <command> --help for a command's own flags.`);
  return `${lines.join('\n')}\n`;
}
