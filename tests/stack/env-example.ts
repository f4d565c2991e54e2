// Renders .env.example from the settings table, so it documents every variable exactly as the
// code defines it. `node tests/stack/env-example.ts --write` regenerates the file; the stack test
// fails when it is out of date.
import { writeFile } from 'node:fs/promises';
import { SETTINGS } from '../../apps/gateway/src/settings.ts';

/** Variables docker-compose.yml reads for itself (never seen by Nexus). */
export const COMPOSE_VARIABLES: { name: string; example: string; description: string }[] = [
  {
    name: 'COMPOSE_PROFILES',
    example: 'ollama,workers',
    description: 'Optional services to run: `ollama` (a local model server), `workers` (extra workers).',
  },
  {
    name: 'NEXUS_IMAGE',
    example: 'nexus:0.1.0',
    description: 'Tag `docker compose build` gives the Nexus image.',
  },
  {
    name: 'NEXUS_PUBLISH',
    example: '127.0.0.1:8787',
    description: 'Host address and port of the web chat. Keep it on loopback behind a TLS reverse proxy.',
  },
  {
    name: 'NEXUS_OLLAMA_MODEL',
    example: 'llama3.2:3b',
    description: 'Model the `ollama` profile pulls on first start (kept in the ollama-models volume).',
  },
];

/** Settings the compose file sets itself; shown for completeness, changing them there is rarely right. */
export const COMPOSE_FIXED: Record<string, string> = {
  NEXUS_HOST: '0.0.0.0 (inside the container; published as NEXUS_PUBLISH)',
  NEXUS_PORT: '8787',
  NEXUS_DATA_DIR: '/data (the nexus-data volume)',
  NEXUS_REDIS_URL: 'redis://redis:6379 (the redis service)',
  NEXUS_ROLE: 'all for `nexus`, worker for `worker` (the command line wins)',
};

function commentLines(text: string): string[] {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '#';
  for (const word of words) {
    if (line.length + word.length + 1 > 98 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function renderEnvExample(): string {
  const out: string[] = [
    '# Nexus environment. For docker compose, copy it to .env next to docker-compose.yml; for',
    '# `pnpm start`, export the variables you need. Everything is commented out: uncomment what you',
    '# change. An empty or missing value means the default.',
    '# Generated from apps/gateway/src/settings.ts by `node tests/stack/env-example.ts --write`.',
    '',
    '# To use the ollama profile as the model provider, uncomment these four lines:',
    '# COMPOSE_PROFILES=ollama',
    '# NEXUS_MODEL_PROVIDER=openai-compatible',
    '# NEXUS_MODEL_BASE_URL=http://ollama:11434/v1',
    '# NEXUS_MODEL=llama3.2:3b',
    '',
    '# ---- docker compose only --------------------------------------------------------------',
  ];
  for (const variable of COMPOSE_VARIABLES) {
    out.push('', ...commentLines(variable.description), `# ${variable.name}=${variable.example}`);
  }
  out.push('', '# ---- Nexus settings (also usable without compose) ---------------------------------------');
  for (const setting of SETTINGS) {
    const fixed = COMPOSE_FIXED[setting.env];
    const details = [
      setting.description.replaceAll('`', ''),
      setting.secret ? `Secret: may instead be read from the file named by ${setting.env}_FILE.` : '',
      fixed ? `docker-compose.yml sets it to ${fixed}.` : '',
    ].filter(Boolean);
    const shown =
      setting.defaultValue === undefined ? '' : String(setting.defaultValue).replaceAll('\n', ' ');
    out.push('', ...commentLines(details.join(' ')), `# ${setting.env}=${shown}`);
    if (setting.secret) out.push(`# ${setting.env}_FILE=/run/secrets/${setting.env.toLowerCase()}`);
  }
  return `${out.join('\n')}\n`;
}

if (process.argv.includes('--write')) {
  await writeFile(new URL('../../.env.example', import.meta.url), renderEnvExample());
  process.stdout.write('.env.example written\n');
}
