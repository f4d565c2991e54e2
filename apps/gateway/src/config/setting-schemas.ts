import { z } from 'zod';

/** Shapes several areas share; each area keeps its own special ones beside its settings. */
export const port = z.coerce.number().int().min(0).max(65_535);
export const positiveInt = z.coerce.number().int().positive();
export const booleanText = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);
export const commaList = z.union([
  z.array(z.string()),
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
]);

/** `<channel>:<id>` entries (or `*`), such as allowlists of people and groups. */
export const identityList = commaList.pipe(
  z.array(z.string().regex(/^(\*|[a-z][a-z0-9-]*:.+)$/, 'each entry must look like <channel>:<id>')),
);
