import { SETTINGS } from './settings.ts';

/** The README's settings table, generated from SETTINGS so the documentation cannot drift. */
export function settingsTable(): string {
  const rows = SETTINGS.map((setting) => {
    const fallback =
      setting.defaultValue === undefined ? '—' : `\`${String(setting.defaultValue).replaceAll('\n', ' ')}\``;
    const shownDefault = setting.env === 'NEXUS_SYSTEM_PROMPT' ? 'a short assistant prompt' : fallback;
    return `| \`${setting.env}\` | \`${setting.path}\` | ${shownDefault} | ${setting.description} |`;
  });
  return ['| Variable | Config file key | Default | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
