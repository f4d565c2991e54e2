import type { GatewayConfig } from '../config/gateway-config.ts';
import { ConfigError, type LoadConfigOptions, loadConfig } from '../config/load-config.ts';
import type { CommandOutput } from './command-output.ts';
import { checkDataVolume } from './doctor-disk-check.ts';
import { checkExtractionModel } from './doctor-extraction-check.ts';
import { type DoctorLine, formatDoctorLine } from './doctor-line.ts';
import { checkMcpServers } from './doctor-mcp-check.ts';
import { checkNodeVersion } from './doctor-node-check.ts';
import { checkDataPermissions } from './doctor-permission-check.ts';
import { checkChannels, checkModel, checkQueue } from './doctor-remote-checks.ts';
import { checkMemorySearch } from './doctor-search-check.ts';
import { checkStores } from './doctor-store-checks.ts';

/**
 * `nexus doctor`: configuration, stores, queue, model provider and channel credentials, one line
 * each, every problem with its fix. Exits 1 when something is broken, 0 otherwise (warnings
 * included). Reads only, unless `--fix` asks it to tighten file modes; safe while the gateway runs.
 */
export async function doctorCommand(options: {
  config: LoadConfigOptions;
  output: CommandOutput;
  fetch?: typeof fetch;
  /** `nexus doctor --fix`: take group and other permissions off the data directory's contents. */
  fix?: boolean;
}): Promise<number> {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const lines: DoctorLine[] = [checkNodeVersion()];
  let config: GatewayConfig | undefined;
  try {
    config = loadConfig(options.config);
    lines.push({ status: 'ok', subject: 'config', message: 'valid' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) {
      const [what, ...fix] = problem.split('; ');
      lines.push({
        status: 'fail',
        subject: 'config',
        message: what ?? problem,
        ...(fix.length > 0 ? { fix: fix.join('; ') } : {}),
      });
    }
  }
  if (config) {
    const permissions = await checkDataPermissions(config.dataDir, { fix: options.fix === true });
    const [volume, stores, queue, model, extraction, search, channels, mcpServers] = await Promise.all([
      checkDataVolume(config.dataDir, config.dataMinFreeMb),
      checkStores(config),
      checkQueue(config),
      checkModel(config, fetchFunction),
      checkExtractionModel(config, fetchFunction),
      checkMemorySearch(config, fetchFunction),
      checkChannels(config, fetchFunction),
      checkMcpServers(config),
    ]);
    lines.push(
      volume,
      ...stores,
      permissions,
      queue,
      model,
      ...(extraction ? [extraction] : []),
      search,
      ...channels,
      ...mcpServers,
      ...checkPolicies(config),
    );
  } else {
    lines.push({
      status: 'warn',
      subject: 'other checks',
      message: 'skipped until the configuration is valid',
    });
  }
  for (const line of lines) options.output.out(formatDoctorLine(line));
  const failures = lines.filter((line) => line.status === 'fail').length;
  const warnings = lines.filter((line) => line.status === 'warn').length;
  options.output.out(
    failures > 0
      ? `\n${failures} problem${failures === 1 ? '' : 's'} to fix${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}.\n`
      : `\nAll good${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}.\n`,
  );
  return failures > 0 ? 1 : 0;
}

/** Policies that are valid but probably not what the owner meant. */
function checkPolicies(config: GatewayConfig): DoctorLine[] {
  const enabled = {
    telegram: Boolean(config.telegram.botToken),
    discord: Boolean(config.discord.botToken),
    whatsapp: config.whatsapp.enabled,
  };
  const lines: DoctorLine[] = [];
  for (const [channel, on] of Object.entries(enabled)) {
    if (!on) continue;
    const policy = config.access.dmPolicy[channel as keyof typeof enabled];
    const variable = `NEXUS_${channel.toUpperCase()}_DM_POLICY`;
    if (policy === 'open') {
      lines.push({
        status: 'warn',
        subject: `access ${channel}`,
        message: `direct messages are open: anyone who finds the bot can use your model credits`,
        fix: `set ${variable}=pairing unless that is what you want`,
      });
    } else if (
      policy === 'allowlist' &&
      !(config.access.allowlist ?? []).some((entry) => entry.startsWith(`${channel}:`))
    ) {
      lines.push({
        status: 'warn',
        subject: `access ${channel}`,
        message:
          'the allowlist policy is on but NEXUS_DM_ALLOWLIST lists nobody on this channel; only people you approved can write',
        fix: `add ${channel}:<id> entries to NEXUS_DM_ALLOWLIST, or set ${variable}=pairing`,
      });
    } else {
      lines.push({ status: 'ok', subject: `access ${channel}`, message: `direct messages: ${policy}` });
    }
  }
  return lines;
}
