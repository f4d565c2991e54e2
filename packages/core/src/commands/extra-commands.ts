import type { Intent } from '@nexus/protocol';
import type { ParsedCommand } from './parse-command.ts';

/**
 * A command answered without the model that lives outside access control (`/reminders`,
 * `/timezone`): it runs in the conversation's lane with `intent.userId` already the person, after
 * the same policy checks as any other message, and returns the answer's text.
 */
export type ExtraCommand = (options: {
  intent: Intent;
  argument: string;
  abortSignal: AbortSignal;
}) => Promise<string>;

/** `/name` → handler; names are lower-case letters, digits, `_` or `-`. */
export type ExtraCommands = Readonly<Record<string, ExtraCommand>>;

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
