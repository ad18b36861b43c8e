import { type Kysely, sql } from 'kysely';

/**
 * Two alert signals from shared links (docs/alerts.md, "Signals"): `revisit`, a customer back on a
 * link directed at them after days without a view of it, and `forward`, the link opened by someone
 * other than its customer.
 *
 * `link_view_logs` gains `reader_email`, the address the view's reader gave on the link: the e-mail
 * gate's, as the unlock cookie carried it when the view started, or the form's filled in the view;
 * null for none. `reader_verified` is 1 when the gate's code proved that address.
 *
 * `alert_settings` gains `revisit_days` (1–90, default 3), the days without a view a member's
 * `revisit` needs; `alert_project_settings` gains `revisit_days` (null: the member's own).
 *
 * Upgrading turns the two signals on wherever `deck_opened` is on: a member's stored signals, their
 * choice of signals in a project, and a chat channel's signals (its options' JSON) that name
 * `deck_opened` gain `revisit` and `forward`; a list without `deck_opened` stays as it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table link_view_logs add column reader_email text`.execute(db);
  await sql`alter table link_view_logs add column reader_verified integer not null default 0`.execute(db);
  await sql`alter table alert_settings add column revisit_days integer not null default 3`.execute(db);
  await sql`alter table alert_project_settings add column revisit_days integer`.execute(db);

  await sql`update alert_settings set signals = signals || ',revisit,forward'
    where (',' || signals || ',') like '%,deck_opened,%'`.execute(db);
  await sql`update alert_project_settings set signals = signals || ',revisit,forward'
    where signals is not null and (',' || signals || ',') like '%,deck_opened,%'`.execute(db);

  const channels = await sql<{ id: string; options: string }>`select id, options from webhooks
    where purpose = 'alerts' and options is not null`.execute(db);
  for (const row of channels.rows) {
    let options: unknown;
    try {
      options = JSON.parse(row.options);
    } catch {
      continue;
    }
    if (options === null || typeof options !== 'object') continue;
    const signals = (options as { signals?: unknown }).signals;
    if (!Array.isArray(signals) || !signals.includes('deck_opened')) continue;
    const next = [...signals, ...['revisit', 'forward'].filter((s) => !signals.includes(s))];
    const text = JSON.stringify({ ...options, signals: next });
    await sql`update webhooks set options = ${text} where id = ${row.id}`.execute(db);
  }
}
