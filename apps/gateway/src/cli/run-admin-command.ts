import { openAccessStore } from '../composition/create-gateway-access.ts';
import type { LoadConfigOptions } from '../config/load-config.ts';
import { openScheduleStore } from '../tools/open-schedule-store.ts';
import { type CommandOutput, processOutput } from './command-output.ts';
import { doctorCommand } from './doctor-command.ts';
import { EX_CONFIG, loadCommandConfig } from './load-command-config.ts';
import { PAIRING_USAGE, pairingCommand } from './pairing-command.ts';
import { REMINDERS_USAGE, remindersCommand } from './reminders-command.ts';
import { USERS_USAGE, usersCommand } from './users-command.ts';
import { usersForgetCommand } from './users-forget.ts';

export async function runAdminCommand(options: {
  /** The positional arguments, command first: `['pairing', 'approve', 'ABCD2345']`. */
  args: string[];
  config: LoadConfigOptions;
  output?: CommandOutput;
  fetch?: typeof fetch;
  /** `--fix`, for `doctor`. */
  fix?: boolean;
}): Promise<number> {
  const output = options.output ?? processOutput;
  try {
    return await dispatch(options, output);
  } finally {
    await output.flush?.();
  }
}

async function dispatch(
  options: { args: string[]; config: LoadConfigOptions; fetch?: typeof fetch; fix?: boolean },
  output: CommandOutput,
): Promise<number> {
  const [command, ...rest] = options.args;
  if (command === 'doctor') {
    return doctorCommand({
      config: options.config,
      output,
      fix: options.fix === true,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }
  if (rest.length === 0 || rest[0] === 'help') {
    output.out(
      command === 'pairing' ? PAIRING_USAGE : command === 'reminders' ? REMINDERS_USAGE : USERS_USAGE,
    );
    return 0;
  }
  const config = loadCommandConfig(options.config, output);
  if (!config) return EX_CONFIG;
  if (command === 'reminders') {
    const schedules = openScheduleStore(config);
    try {
      return remindersCommand({ args: rest, store: schedules, output });
    } finally {
      schedules.close();
    }
  }
  const store = openAccessStore(config.dataDir);
  try {
    if (command === 'users' && rest[0] === 'forget') {
      if (rest.length !== 2 || rest[1] === undefined) {
        output.error(USERS_USAGE);
        return 64;
      }
      return await usersForgetCommand({ person: rest[1], config, store, output });
    }
    return command === 'pairing'
      ? pairingCommand({ args: rest, store, output })
      : usersCommand({ args: rest, store, output });
  } finally {
    store.close();
  }
}
