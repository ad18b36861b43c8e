import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import type { Page } from '../../http/paging.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AccessService } from '../access/service.ts';
import { type AuditRow, auditRepository as repo } from './repository.ts';

/** The changes the audit log records (docs/projects.md, "Audit log"); the console has a label for each. */
export const AUDIT_ACTIONS = [
  'member.add',
  'member.readd',
  'member.remove',
  'member.accept',
  'member.leave',
  'member.join',
  'invitation.create',
  'invitation.resend',
  'invitation.revoke',
  'customer.transfer_owner',
  'customer.transfer_group',
  'customer.delete',
  'customer.merge',
  'customer.erase',
  'customer.import',
  'customer.export',
  'project.edit',
  'project.secret_rotate',
  'project.site_key_rotate',
  'project.site_secret_rotate',
  'project.logo_set',
  'project.logo_remove',
  'project.scoring_edit',
  'webhook.create',
  'webhook.remove',
  'webhook.replay',
  'channel.create',
  'channel.update',
  'channel.remove',
  'playbook.create',
  'playbook.edit',
  'playbook.remove',
  'file.upload',
  'file.replace',
  'link.agreements_export',
  'link.analytics_export',
  'field.create',
  'field.edit',
  'field.remove',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  appId: string;
  actorId: number | null;
  action: AuditAction;
  targetType: 'member' | 'invitation' | 'customer' | 'project' | 'webhook' | 'channel' | 'file' | 'field' | 'import' | 'playbook' | 'link';
  targetId: string;
  detail?: Record<string, unknown>;
}

/** Writes one entry with the change it records: pass the change's transaction. */
export type AuditRecorder = (executor: Kysely<Database>, entry: AuditEntry) => Promise<void>;

export function createAuditService(ctx: AppContext, access: AccessService) {
  const clock = ctx.clock;
  const record: AuditRecorder = (executor, e) =>
    repo.insert(executor, {
      id: timeOrderedUuid(),
      app_id: e.appId,
      actor_id: e.actorId,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      detail: e.detail === undefined ? null : JSON.stringify(e.detail),
      created_at: clock.now(),
    });
  const toEntry = (r: AuditRow) => ({
    id: r.id,
    appId: r.app_id,
    svcUserId: r.actor_id === null ? null : String(r.actor_id),
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    detail: r.detail === null ? null : (JSON.parse(r.detail) as Record<string, unknown>),
    createdAt: clock.format(r.created_at),
  });
  return {
    record,
    /** Newest first; Master and Admin only. */
    async list(appId: string, callerId: number, p: Page) {
      await access.manager(appId, callerId);
      return (await repo.page(ctx.database.db, appId, p.offset, p.limit)).map(toEntry);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
