import { ACCESS_SETTINGS } from './access-settings.ts';
import { CHANNEL_SETTINGS } from './channel-settings.ts';
import { DEPLOYMENT_SETTINGS } from './deployment-settings.ts';
import { TURN_LIMIT_SETTINGS } from './limit-settings.ts';
import { MEDIA_SETTINGS } from './media-settings.ts';
import { MEMORY_SETTINGS } from './memory-settings.ts';
import { MODEL_SETTINGS } from './model-settings.ts';
import { OBSERVABILITY_SETTINGS } from './observability-settings.ts';
import { SERVER_SETTINGS } from './server-settings.ts';
import type { SettingDefinition } from './setting-definition.ts';
import { TOOL_SETTINGS, TOOLS_SWITCH_SETTINGS } from './tool-settings.ts';

export type { SettingDefinition } from './setting-definition.ts';

/**
 * Every setting a user can change, one file per area, in the order the README's table, `.env.example`
 * and the compose file list them (that order is why the tools' on/off switch sits between the limits
 * and memory). A new setting goes into its area's file; the generated documents follow from here.
 */
const SETTINGS_TABLE = [
  ...SERVER_SETTINGS,
  ...MODEL_SETTINGS,
  ...TURN_LIMIT_SETTINGS,
  ...TOOLS_SWITCH_SETTINGS,
  ...MEMORY_SETTINGS,
  ...CHANNEL_SETTINGS,
  ...DEPLOYMENT_SETTINGS,
  ...ACCESS_SETTINGS,
  ...MEDIA_SETTINGS,
  ...TOOL_SETTINGS,
  ...OBSERVABILITY_SETTINGS,
] as const;

/** The settings with their exact types; `GatewayConfig` is derived from it. */
export type SettingsTable = typeof SETTINGS_TABLE;

export const SETTINGS: readonly SettingDefinition[] = SETTINGS_TABLE;
