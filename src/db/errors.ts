/** True when a write failed on a UNIQUE constraint (SQLite and PostgreSQL report it differently). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The constraint or column a unique violation names, when the driver tells. */
export function uniqueViolationTarget(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { constraint?: string; detail?: string; message?: string };
  return `${e.constraint ?? ''} ${e.detail ?? ''} ${e.message ?? ''}`;
}

/**
 * True when a transaction failed only because of another one running at the same time and may
 * simply be run again: PostgreSQL's deadlock_detected (40P01) and serialization_failure (40001),
 * SQLite's SQLITE_BUSY after busy_timeout.
 */
export function isTransientConflict(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '40P01' || code === '40001' || code === 'SQLITE_BUSY';
}
