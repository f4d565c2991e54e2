import type { z } from 'zod';

/**
 * Every setting a user can change, in one table: the environment variable, the path in the
 * optional JSON config file, its schema, default and a one-line description. The README's settings
 * table is checked against this list by a test, so documentation cannot drift from code.
 */
export interface SettingDefinition {
  env: string;
  path: string;
  schema: z.ZodType;
  defaultValue?: unknown;
  description: string;
  /** How to fix a wrong value; shown in the error. */
  hint: string;
  /** Secrets are redacted in logs and may be read from `<ENV>_FILE`. */
  secret?: boolean;
}
