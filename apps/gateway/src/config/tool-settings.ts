import { mcpServerConfigSchema } from '@nexus/tools-mcp/config';
import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText, identityList, positiveInt } from './setting-schemas.ts';

/** A JSON list in an environment variable (or its `_FILE`), or the list itself in the config file. */
const mcpServerList = z
  .union([
    z.array(z.unknown()),
    z.string().transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'not valid JSON' });
        return z.NEVER;
      }
    }),
  ])
  .pipe(z.array(mcpServerConfigSchema))
  .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, {
    message: 'server names must be unique',
  });

/** An IANA zone name `Intl` knows (the same check `/timezone` makes). */
const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}, 'not a time zone Intl knows');

/**
 * The switch for all of the model's tools. It comes right after the turn limits in the settings
 * table (`settings.ts`), away from the other tool settings, to keep the documented order.
 */
export const TOOLS_SWITCH_SETTINGS = [
  {
    env: 'NEXUS_MODEL_TOOLS',
    path: 'model.tools',
    schema: booleanText,
    defaultValue: true,
    description:
      'Give the model its tools: `remember`, `recall`, `forget` (memory of the person speaking), `delegate` (subagents), `schedule` (reminders) and those of MCP servers. Turn off for models without tool calling.',
    hint: 'use true or false',
  },
] as const satisfies readonly SettingDefinition[];

/**
 * The tools themselves: MCP servers and their limits, who may use outside tools and where, and
 * the time zone reminders and schedules fall back to. Part of the settings table (`settings.ts`).
 */
export const TOOL_SETTINGS = [
  {
    env: 'NEXUS_MCP_SERVERS',
    path: 'tools.mcpServers',
    schema: mcpServerList,
    defaultValue: [],
    description:
      'MCP tool servers, as a JSON list: `{"name":"files","transport":"stdio","command":"npx","args":[…],"env":{…}}` or `{"name":"crm","transport":"http","url":"https://…/mcp","headers":{"Authorization":"Bearer …"}}`, each with an optional `"tools":[…]` allowlist. Also read from `NEXUS_MCP_SERVERS_FILE` (keep header secrets there). See docs/tools.md.',
    hint: 'give a JSON list of servers, e.g. [{"name":"shop","transport":"http","url":"http://127.0.0.1:3001/mcp"}]',
    secret: true,
  },
  {
    env: 'NEXUS_MCP_CALL_TIMEOUT_MS',
    path: 'tools.callTimeoutMs',
    schema: positiveInt,
    defaultValue: 20_000,
    description:
      'How long one MCP tool call may take; after it the call is abandoned and the model is told so.',
    hint: 'set it to a positive number of milliseconds, e.g. 20000',
  },
  {
    env: 'NEXUS_MCP_MAX_OUTPUT_CHARS',
    path: 'tools.maxOutputChars',
    schema: positiveInt,
    defaultValue: 8000,
    description: 'Characters of one MCP tool result given to the model; longer output is cut with a note.',
    hint: 'set it to a positive integer such as 8000',
  },
  {
    env: 'NEXUS_MCP_ALLOWED_PEOPLE',
    path: 'tools.allowedPeople',
    schema: identityList,
    description:
      'Who gets MCP tools besides the web chat (the owner’s, behind the gateway token): person ids or `<channel>:<platform id>` entries such as `telegram:123456789`, or `*` for everyone. Default: nobody else.',
    hint: 'list entries such as telegram:123456789 separated by commas',
  },
  {
    env: 'NEXUS_MCP_IN_GROUPS',
    path: 'tools.inGroups',
    schema: booleanText,
    defaultValue: false,
    description: 'Offer MCP tools in group chats too (to allowed people only). Off by default.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_DEFAULT_TIMEZONE',
    path: 'time.defaultZone',
    schema: timeZone,
    defaultValue: 'UTC',
    description:
      'Time zone (IANA name, e.g. `Europe/Lisbon`) for people who have not set theirs with `/timezone`: reminders, schedules and "today" in memory extraction.',
    hint: 'use an IANA zone name such as UTC or Europe/Lisbon',
  },
  {
    env: 'NEXUS_GROUP_MAX_REMINDERS',
    path: 'reminders.maxPerGroup',
    schema: z.coerce.number().int().min(1).max(1000),
    defaultValue: 10,
    description:
      'Reminders and recurring messages one group (or thread) may have waiting, whoever set them (each person may have 20). Everyone in the group can list them with `/reminders`; the owner cancels any with `nexus reminders` or the web Access panel.',
    hint: 'use a whole number from 1 to 1000',
  },
] as const satisfies readonly SettingDefinition[];
