/**
 * `NAME=value NAME=value` (what a bench's `--gateway-env` takes) as an environment: extra
 * settings for the gateway under test, e.g. `--gateway-env 'NEXUS_MODEL_THREADS=0'`.
 */
export function envPairs(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(' ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}
