/**
 * A webhook row as the table holds it, for tests that store one straight in the database, past the
 * registration check (as if stored before the check existed, or under another setting).
 */
export function storedWebhookRow(appId: string, createdBy: number, id: string, url: string) {
  return {
    id,
    app_id: appId,
    url,
    secret: 's',
    domain_types: null,
    status: 'active',
    disabled_reason: null,
    cursor: 0,
    created_by: createdBy,
    created_at: Date.now(),
  };
}
