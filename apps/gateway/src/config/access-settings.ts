import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText, identityList, positiveInt } from './setting-schemas.ts';

const dmPolicy = z.enum(['pairing', 'allowlist', 'open', 'disabled']);

/**
 * Who may talk to the assistant and how often: direct-message policies per channel, allowlists
 * for people and groups, and the rate limits per person and overall.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const ACCESS_SETTINGS = [
  ...(['web', 'telegram', 'discord', 'whatsapp'] as const).map((channel) => ({
    env: `NEXUS_${channel.toUpperCase()}_DM_POLICY`,
    path: `access.dmPolicy.${channel}` as const,
    schema: dmPolicy,
    defaultValue: channel === 'web' ? 'open' : 'pairing',
    description:
      channel === 'web'
        ? 'Who may chat on the web: `open` (default; the web chat is the owner’s and already needs the gateway token, each browser becomes a person), `pairing`, `allowlist` or `disabled`.'
        : `Who may send ${channel === 'whatsapp' ? 'WhatsApp' : channel === 'telegram' ? 'Telegram' : 'Discord'} direct messages: \`pairing\` (default: strangers get a code the owner approves with \`nexus pairing approve CODE\`), \`allowlist\` (only \`NEXUS_DM_ALLOWLIST\` and approved people), \`open\` (anyone) or \`disabled\`.`,
    hint: 'use one of pairing, allowlist, open, disabled',
  })),
  {
    env: 'NEXUS_DM_ALLOWLIST',
    path: 'access.allowlist',
    schema: identityList,
    description:
      'Comma-separated identities always allowed direct messages, as `<channel>:<platform id>` (e.g. `telegram:123456789`), or `<channel>:*` for everyone on a channel.',
    hint: 'list entries such as telegram:123456789,discord:987654321 separated by commas',
  },
  {
    env: 'NEXUS_GROUP_ALLOWLIST',
    path: 'access.groupAllowlist',
    schema: identityList,
    description:
      'Comma-separated groups the assistant answers in (only when mentioned, replied to or given a command), as `<channel>:<chat id>`, `<channel>:*` or `*`. Default: none. Approving a person never grants group access.',
    hint: 'list entries such as telegram:-1001234567890,discord:* separated by commas',
  },
  {
    env: 'NEXUS_RATE_LIMIT_PER_MINUTE',
    path: 'access.rateLimit.personPerMinute',
    schema: positiveInt,
    defaultValue: 10,
    description:
      'Messages per minute one person may send to the model (token bucket); beyond it they get a polite reply and no model call.',
    hint: 'set it to a positive integer such as 10',
  },
  {
    env: 'NEXUS_RATE_LIMIT_BURST',
    path: 'access.rateLimit.personBurst',
    schema: positiveInt,
    defaultValue: 10,
    description: 'Messages one person may send at once before `NEXUS_RATE_LIMIT_PER_MINUTE` applies.',
    hint: 'set it to a positive integer such as 10',
  },
  {
    env: 'NEXUS_GLOBAL_RATE_LIMIT_PER_MINUTE',
    path: 'access.rateLimit.globalPerMinute',
    schema: positiveInt,
    defaultValue: 120,
    description: 'Messages per minute from everyone together that reach the model.',
    hint: 'set it to a positive integer such as 120',
  },
  {
    env: 'NEXUS_GLOBAL_RATE_LIMIT_BURST',
    path: 'access.rateLimit.globalBurst',
    schema: positiveInt,
    defaultValue: 60,
    description: 'Messages from everyone together accepted at once before the global rate applies.',
    hint: 'set it to a positive integer such as 60',
  },
  {
    env: 'NEXUS_RATE_LIMIT_WEB',
    path: 'access.rateLimit.web',
    schema: booleanText,
    defaultValue: false,
    description:
      'Apply the per-person and global rate limits to the web chat too. Off by default: the web chat is the owner’s and is limited per connection by `NEXUS_WEB_MESSAGES_PER_MINUTE`.',
    hint: 'use true or false',
  },
] as const satisfies readonly SettingDefinition[];
