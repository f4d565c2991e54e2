import type { GatewayConfig } from '../config/gateway-config.ts';
import { ConfigError, type LoadConfigOptions, loadConfig } from '../config/load-config.ts';
import type { CommandOutput } from './command-output.ts';

/** sysexits' EX_CONFIG: what an owner command exits with when the configuration is wrong. */
export const EX_CONFIG = 78;

/**
 * The configuration an owner command runs with, or undefined after printing every wrong key with
 * its fix (the caller exits `EX_CONFIG`). Anything but a configuration error is thrown on.
 */
export function loadCommandConfig(
  options: LoadConfigOptions,
  output: CommandOutput,
): GatewayConfig | undefined {
  try {
    return loadConfig(options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    output.error(`${error.message}\n`);
    return undefined;
  }
}
