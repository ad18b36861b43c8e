/** The settings' common parts: the error a bad one throws, and the parsers of numbers, flags and user-id lists. */

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A comma list of platform user ids; empty: nobody. */
export function userIdsSetting(env: Env, name: string): number[] {
  const raw = env[name] ?? '';
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const id of ids) {
    if (!/^\d{1,10}$/.test(id) || Number(id) < 1 || Number(id) > 2147483647)
      throw new ConfigError(`${name} must be a comma list of user ids, got "${id}"`);
  }
  return [...new Set(ids.map(Number))];
}

export function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}
