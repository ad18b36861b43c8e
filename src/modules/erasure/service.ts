import type { Database } from '../../db/index.ts';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import { customerEventEraser, writeEvents } from '../../events/outbox.ts';
import { failure } from '../../http/errors.ts';
import type { AccessService } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { BehaviourErasure } from '../behaviour/service.ts';
import type { CampaignErasure } from '../campaigns/service.ts';
import type { CustomerErasure } from '../customers/service.ts';
import type { HistoryErasure } from '../histories/service.ts';
import type { LinkErasure } from '../links/service.ts';
import type { MergeErasure } from '../merges/service.ts';
import type { ScoreKeeper } from '../scoring/service.ts';
import type { SiteErasure } from '../site/service.ts';
import type { TaskErasure } from '../tasks/service.ts';
import type { AlertErasure } from '../alerts/service.ts';
import type { PlaybookErasure } from '../playbooks/service.ts';
import type { SequenceErasure } from '../sequences/service.ts';

type Db = Kysely<Database>;

export interface ErasureResult {
  id: string;
  appId: string;
  /** The customers erased: the one named and those merged into it. */
  customerIds: string[];
  /** Rows removed (or, for directed links, unlinked) per table. */
  erased: Record<string, number>;
}

/** The modules whose tables name customers, each erasing its own rows (built in src/services.ts). */
export interface ErasureOwners {
  customers: CustomerErasure;
  merges: MergeErasure;
  histories: HistoryErasure;
  links: LinkErasure;
  behaviour: BehaviourErasure;
  site: SiteErasure;
  campaigns: CampaignErasure;
  tasks: TaskErasure;
  alerts: AlertErasure;
  sequences: SequenceErasure;
  playbooks: PlaybookErasure;
  scoring: Pick<ScoreKeeper, 'erase'>;
}

/**
 * One table's part of erasing customers, run by the table's owner: deletes (or, for records that are
 * not the customer's own, unlinks) the rows that name any of `ids` in project `appId`, and returns
 * how many it touched.
 */
interface ErasureStep {
  table: string;
  run(trx: Db, appId: string, ids: string[]): Promise<number>;
}

/**
 * EVERY table that references a customer, in the order the deletes run (children before the rows
 * they hang on), each erased by the module that owns it. A feature that adds a table naming customers
 * (mail logs, …) gives its owner an erasure function and adds its step here: this list is the one
 * place erasure learns about it (docs/customers.md, "Erasure").
 */
function erasureSteps(o: ErasureOwners, emptyCustomerEvents: ErasureStep['run']): readonly ErasureStep[] {
  return [
    // Form submissions made during the customer's views (their name, e-mail, phone), found through
    // the views: before the views go.
    { table: 'clues', run: async (trx, appId, ids) => o.histories.eraseClues(trx, appId, await o.links.viewsOf(trx, appId, ids)) },
    { table: 'link_view_durations', run: o.links.eraseViewDurations },
    { table: 'link_view_logs', run: o.links.eraseViews },
    { table: 'behaviour_logs', run: o.behaviour.eraseRecords },
    { table: 'behaviour_rollups', run: o.behaviour.eraseRollups },
    { table: 'behaviour_totals', run: o.behaviour.eraseTotals },
    { table: 'calls', run: o.histories.eraseCalls },
    // The team's notes and tasks about the customers, with the bodies of their events still in the outbox.
    { table: 'notes', run: o.tasks.eraseNotes },
    { table: 'tasks', run: o.tasks.eraseTasks },
    // The alerts about them (signals, readings, notifications), with the bodies of their Alert events still in the outbox.
    { table: 'alert_signals', run: o.alerts.eraseAlerts },
    // Their enrolments in sequences and the steps run, with the bodies of their Enrollment events still in the outbox.
    { table: 'sequence_enrollments', run: o.sequences.eraseEnrollments },
    // What the playbooks did to them (hits and runs: the record that triggered, the outcome).
    { table: 'playbook_runs', run: o.playbooks.erasePlaybookRuns },
    // A directed link is the sales user's material: it stays, addressed to no one.
    { table: 'links', run: o.links.unlinkCustomers },
    // The agreements their visitors accepted (address, name, client), then the visitors.
    { table: 'link_agreement_acceptances', run: o.links.eraseAcceptances },
    { table: 'visitors', run: o.links.eraseVisitors },
    // The site visitors tied to the customers, with their visits and events: children first.
    { table: 'site_visits', run: o.site.eraseVisits },
    { table: 'site_events', run: o.site.eraseEvents },
    { table: 'site_visitors', run: o.site.eraseVisitors },
    // A campaign's figures stay; its recipient rows lose the address, the merge values and the customer.
    { table: 'campaign_recipients', run: o.campaigns.anonymizeRecipients },
    { table: 'customer_merges', run: o.merges.eraseAliases },
    // The engagement score, its reasons (titles, addresses) and its marks.
    { table: 'customer_scores', run: o.scoring.erase },
    // Customer events still in the outbox carry the customer object.
    { table: 'outbox', run: emptyCustomerEvents },
    { table: 'customer_field_values', run: o.customers.eraseFieldValues },
    { table: 'customers', run: o.customers.eraseCustomers },
  ];
}

/**
 * The right to be forgotten (docs/customers.md, "Erasure"): a customer, the customers merged into
 * it and everything that names them, hard-deleted in one transaction, each table by its owner, with
 * an audit entry that keeps no personal data (ids and counts only) and a Customer `delete` event
 * without a body.
 */
export function createErasureService(ctx: AppContext, deps: { access: AccessService; audit: AuditRecorder; owners: ErasureOwners }) {
  const { access, audit, owners } = deps;
  const { customers, merges } = owners;
  const db: Db = ctx.database.db;
  const steps = erasureSteps(owners, customerEventEraser(ctx.database.features));

  async function erase(appId: string, customerId: string, actorId: number | null): Promise<ErasureResult> {
    return db.transaction().execute(async (trx) => {
      const row = await customers.find(trx, appId, customerId);
      if (!row) throw failure('customer_not_found');
      const ids = [customerId, ...(await customers.stored(trx, appId, await merges.mergedInto(trx, appId, customerId)))];
      const survivors = await merges.pendingSurvivors(trx, appId, ids);
      const erased: Record<string, number> = {};
      for (const step of steps) erased[step.table] = await step.run(trx, appId, ids);
      await customers.settleMerges(trx, appId, await merges.settled(trx, appId, survivors));
      const now = ctx.clock.now();
      // Consumers that keep copies learn to forget them too; the body names nothing but the ids.
      await writeEvents(
        trx,
        appId,
        ids.map((id) => ({ event_type: 'delete', domainType: 'Customer', domainId: id, body: { id, appId, status: 0, erased: true } })),
        now,
      );
      await audit(trx, {
        appId,
        actorId,
        action: 'customer.erase',
        targetType: 'customer',
        targetId: customerId,
        detail: { customers: ids, rows: erased },
      });
      return { id: customerId, appId, customerIds: ids, erased };
    });
  }

  return {
    /** The API: the project's Master or an Admin. */
    async erase(appId: string, callerId: number, customerId: string): Promise<ErasureResult> {
      await access.manager(appId, callerId);
      return erase(appId, customerId, callerId);
    },

    /** `rapport erase customer ID`: the operator, by id alone. */
    async eraseById(customerId: string): Promise<ErasureResult> {
      const appId = await customers.projectOf(db, customerId);
      if (appId === undefined) throw failure('customer_not_found');
      return erase(appId, customerId, null);
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
