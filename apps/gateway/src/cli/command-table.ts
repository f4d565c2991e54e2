/**
 * The owner commands' names and usage text, apart from their code: `nexus start` prints the usage
 * and picks a command from these, then imports only the one it runs (the admin commands reach
 * Redis, the doctor's checks and the memory import parsers, none of which a gateway needs).
 */

/** The owner's commands besides `start`; they work on the data directory, gateway running or not. */
export const ADMIN_COMMANDS = ['pairing', 'users', 'reminders', 'doctor'] as const;

export const ADMIN_USAGE = `  pairing list|approve CODE|reject CODE
                   Approve or refuse people who asked for access (\`nexus pairing\` for details)
  users list|link A B|unlink A|forget A
                   People and their linked accounts (\`nexus users\` for details)
  reminders list|cancel ID
                   Reminders waiting in groups, with who set each (\`nexus reminders\` for details)
  doctor [--fix]   Check config, stores, file modes, queue, model provider and channel
                   credentials; --fix makes the data directory readable by its owner only`;

export function isAdminCommand(name: string | undefined): boolean {
  return (ADMIN_COMMANDS as readonly string[]).includes(name ?? '');
}

export const MEMORY_ADMIN_ACTIONS = ['list', 'add', 'delete', 'export', 'import'];

export const MEMORY_ADMIN_USAGE = `Usage (the person is an id as \`nexus users list\` shows it; --global = facts for everyone):
  nexus memory list [--user <person> | --global] [--scope user|session|global] [--limit n]
  nexus memory add (--user <person> | --global) [--category fact|preference|pattern|event] "text"
  nexus memory delete <id> [--user <person> | --global]
  nexus memory export [--user <person> | --global] [file]    JSON Lines, every field (default: stdout)
  nexus memory import [--format jsonl|mem0|openclaw] [--user <person> | --global] <path>
                    jsonl: a \`nexus memory export\`; mem0: a Mem0 get_all/export JSON;
                    openclaw: an OpenClaw workspace (MEMORY.md, memory/YYYY-MM-DD.md)
  Works on this machine's memory store, or the memory service when NEXUS_MEMORY_MODE=http.
`;
