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
