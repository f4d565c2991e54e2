import type { ExtraCommand, ExtraCommands } from '../access/access-options.ts';
import type { ParsedCommand } from './parse-command.ts';

// The option's types live with the access options that carry them.
export type { ExtraCommand, ExtraCommands };

const COMMAND = /^\s*\/([A-Za-z][\w-]*)(?:@(\S+))?(?:\s+([\s\S]*))?$/;

export interface ParsedExtraCommand extends Omit<ParsedCommand, 'name'> {
  name: string;
  run: ExtraCommand;
}

/** The extra command a message is, or undefined. */
export function parseExtraCommand(text: string, commands: ExtraCommands): ParsedExtraCommand | undefined {
  const match = COMMAND.exec(text);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  const run = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!run) return undefined;
  return {
    name,
    run,
    argument: (match[3] ?? '').trim(),
    ...(match[2] === undefined ? {} : { addressedTo: match[2] }),
  };
}
