import type { z } from 'zod';
import type { SettingsTable } from './settings.ts';

/**
 * The validated configuration the gateway runs with, derived from the settings table so there is
 * one shape: each setting's `path` names its place, its schema's output its type, and a setting
 * without a default is optional. Adding a setting to SETTINGS adds it here.
 */
export type GatewayConfig = Expand<UnionToIntersection<SettingShape<SettingsTable[number]>>>;

/** One setting as a nested object, e.g. `server.port` → `{ server: { port: number } }`. */
type SettingShape<Setting> = Setting extends {
  path: infer Path extends string;
  schema: infer Schema extends z.ZodType;
}
  ? Nest<Path, z.output<Schema>, Setting extends { defaultValue: unknown } ? false : true>
  : never;

type Nest<Path extends string, Value, Optional extends boolean> = Path extends `${infer Head}.${infer Rest}`
  ? { [Key in Head]: Nest<Rest, Value, Optional> }
  : Optional extends true
    ? { [Key in Path]?: Value }
    : { [Key in Path]: Value };

type UnionToIntersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (
  value: infer Intersection,
) => void
  ? Intersection
  : never;

/** Flattens the intersections into plain nested objects (readable in editors and errors). */
type Expand<Type> = Type extends readonly unknown[]
  ? Type
  : Type extends object
    ? { [Key in keyof Type]: Expand<Type[Key]> }
    : Type;
