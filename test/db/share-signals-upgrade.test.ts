// lanes: sqlite postgres
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutAppIdCheck } from '../../src/db/app-id-check.ts';
import { up } from '../../src/db/migrations/045_share_signals.ts';
import { TEST_DIALECT } from '../helpers/database.ts';
import { type MigratedDatabase, migratedDatabase } from '../helpers/schema.ts';

/**
 * Migration 045 on a server upgraded with alert settings and chat channels (docs/alerts.md,
 * "Settings"): the new signals `revisit` and `forward` are turned on wherever `deck_opened` is on
 * (a member's own signals, their choice in a project, a channel's), and nowhere else. The database is
 * brought back to before 045 by dropping its columns, then 045 runs again over the rows.
 */
let database: MigratedDatabase;

beforeAll(async () => {
  database = await migratedDatabase(TEST_DIALECT);
});

afterAll(async () => {
  await database.close();
});

describe('migration 045', () => {
  it('turns revisit and forward on where deck_opened is on, leaving every other list as it was', async () => {
    const db = database.handle.db;
    await withoutAppIdCheck(async () => {
      for (const [table, column] of [
        ['link_view_logs', 'reader_email'],
        ['link_view_logs', 'reader_verified'],
        ['alert_settings', 'revisit_days'],
        ['alert_project_settings', 'revisit_days'],
      ] as const) {
        await sql`alter table ${sql.table(table)} drop column ${sql.ref(column)}`.execute(db);
      }
      const settings = (userId: number, signals: string) =>
        sql`insert into alert_settings (user_id, signals, read_threshold, inbox, email, time_zone, digest_hour, locale, updated_at)
          values (${userId}, ${signals}, 50, 1, 'off', 'UTC', 8, 'en-US', 0)`.execute(db);
      await settings(1, 'deck_opened,deck_read,hot_lead,task_due,mention');
      await settings(2, 'deck_read,mention');
      await settings(3, '');
      await sql`insert into alert_project_settings (app_id, user_id, scope, signals, read_threshold, updated_at)
        values ('a1', 1, 'all', 'deck_opened', null, 0), ('a1', 2, 'mine', null, null, 0), ('a1', 3, 'mine', 'hot_lead', 80, 0)`.execute(
        db,
      );
      await sql`insert into users (id, password_hash, cc_num, created_at, updated_at) values (1, 'x', 0, 0, 0)`.execute(db);
      await sql`insert into apps (id, creator_id, name, secret, create_time, edit_time) values ('a1', 1, 'Upgraded', 's', 0, 0)`.execute(
        db,
      );
      const channel = (id: string, options: string | null) =>
        sql`insert into webhooks (id, app_id, url, secret, domain_types, status, disabled_reason, cursor, created_by, created_at, purpose, kind, options)
          values (${id}, 'a1', 'https://chat.example/hook', '', null, 'active', null, 0, 1, 0, 'alerts', 'slack', ${options})`.execute(db);
      await channel('w1', JSON.stringify({ signals: ['deck_opened', 'hot_lead'], readThreshold: 50, locale: 'en-US', name: 'Team' }));
      await channel('w2', JSON.stringify({ signals: ['deck_read'], readThreshold: 70, locale: 'zh-CN', name: null }));
      await channel('w3', null);

      await up(db as unknown as Kysely<unknown>);

      const members = await sql<{ user_id: number; signals: string; revisit_days: number }>`
        select user_id, signals, revisit_days from alert_settings order by user_id`.execute(db);
      expect(members.rows.map((r) => [Number(r.user_id), r.signals, Number(r.revisit_days)])).toEqual([
        [1, 'deck_opened,deck_read,hot_lead,task_due,mention,revisit,forward', 3],
        [2, 'deck_read,mention', 3],
        [3, '', 3],
      ]);
      const choices = await sql<{ user_id: number; signals: string | null; revisit_days: number | null }>`
        select user_id, signals, revisit_days from alert_project_settings order by user_id`.execute(db);
      expect(choices.rows.map((r) => [Number(r.user_id), r.signals, r.revisit_days])).toEqual([
        [1, 'deck_opened,revisit,forward', null],
        [2, null, null],
        [3, 'hot_lead', null],
      ]);
      const channels = await sql<{ id: string; options: string | null }>`select id, options from webhooks order by id`.execute(db);
      const options = Object.fromEntries(channels.rows.map((r) => [r.id, r.options === null ? null : JSON.parse(r.options)]));
      expect(options).toEqual({
        w1: { signals: ['deck_opened', 'hot_lead', 'revisit', 'forward'], readThreshold: 50, locale: 'en-US', name: 'Team' },
        w2: { signals: ['deck_read'], readThreshold: 70, locale: 'zh-CN', name: null },
        w3: null,
      });
    });
  });
});
