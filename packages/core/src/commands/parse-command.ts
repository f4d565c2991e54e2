export type CommandName = 'help' | 'start' | 'new' | 'memories' | 'forget' | 'forget-me' | 'link';

export interface ParsedCommand {
  name: CommandName;
  /** The rest of the message, trimmed (`CODE` in `/link CODE`). */
  argument: string;
  /** The bot named in `/help@SomeBot`, as Telegram writes commands in groups. */
  addressedTo?: string;
}

/** Telegram allows only letters, digits and `_` in command names, so `/forget_me` is the same command. */
const NAMES: Record<string, CommandName> = {
  help: 'help',
  start: 'start',
  new: 'new',
  reset: 'new',
  memories: 'memories',
  forget: 'forget',
  'forget-me': 'forget-me',
  forget_me: 'forget-me',
  forgetme: 'forget-me',
  link: 'link',
};

const COMMAND = /^\s*\/([A-Za-z][\w-]*)(?:@(\S+))?(?:\s+([\s\S]*))?$/;

/** The command a message is, or undefined for ordinary text (including unknown `/words`). */
export function parseCommand(text: string): ParsedCommand | undefined {
  const match = COMMAND.exec(text);
  if (!match) return undefined;
  const name = NAMES[match[1]!.toLowerCase()];
  if (!name) return undefined;
  return {
    name,
    argument: (match[3] ?? '').trim(),
    ...(match[2] === undefined ? {} : { addressedTo: match[2] }),
  };
}
