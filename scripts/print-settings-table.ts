// Prints the settings table for README.md: `node scripts/print-settings-table.ts`.
import { settingsTable } from '../apps/gateway/src/config/settings-table.ts';

process.stdout.write(`${settingsTable()}\n`);
