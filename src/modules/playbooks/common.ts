import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { AccessService, Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import type { PlaybookNotices } from '../alerts/service.ts';
import type { CustomerApi, CustomerBulk, CustomersService } from '../customers/service.ts';
import type { FileFactsReader } from '../files/service.ts';
import type { GroupsService } from '../groups/service.ts';
import type { LinkReadings, LinkReads } from '../links/service.ts';
import type { ScoringService } from '../scoring/service.ts';
import type { TaskService } from '../tasks/service.ts';

/** What a sequence's enrolment and exit take from a playbook (the sequences service's, in the playbook's transaction). */
export interface PlaybookSequences {
  enrollOne(
    trx: Kysely<Database>,
    input: { appId: string; sequenceId: string; customerId: string; actorId: number },
  ): Promise<'enrolled' | 'skipped'>;
  exitCustomer(
    trx: Kysely<Database>,
    input: { appId: string; customerId: string; sequenceId: string | null; reason: 'playbook' },
  ): Promise<number>;
  /** `sequence_not_found` unless the actor's project has this live sequence (a playbook naming it is checked when saved). */
  check(actor: Actor, sequenceId: string): Promise<void>;
}

/** What the playbooks module is built with (src/services.ts). */
export interface PlaybooksDeps {
  /** Members: who a playbook notifies, whose rights its actions use (its author's). */
  access: Pick<AccessService, 'memberRecord' | 'membership'>;
  /** The project's audit log: a playbook made, changed or archived, in the change's transaction. */
  audit: AuditRecorder;
  /** Customers' owner, group and fields (the filters); set_field through the API's edit. */
  customers: Pick<CustomersService, 'playbookFacts'> & {
    api: Pick<CustomerApi, 'editInTransaction'>;
    bulk: Pick<CustomerBulk, 'groupInTransaction'>;
  };
  groups: Pick<GroupsService, 'ownerOf'>;
  tasks: Pick<TaskService, 'createInTransaction'>;
  notices: PlaybookNotices;
  /** The sequences service's enrolment and exit (its `automation`). */
  sequences: PlaybookSequences;
  /** A link of the project (a condition names it). */
  links: Pick<LinkReads, 'alertLinks'>;
  /** A view's pages read, per file. */
  readings: LinkReadings;
  /** A deck's page count. */
  files: FileFactsReader;
  /** Customers' scores now. */
  scores: Pick<ScoringService['view'], 'scoresOf'>;
  /** Whether an action is of the behaviour catalogue (a trigger may be any). */
  isCatalogueAction: (action: string) => boolean;
  /** The records of a project since a time (a dry run's material), oldest first. */
  recordsSince: (appId: string, q: { actions: readonly string[]; since: number; limit: number }) => Promise<HistoryRecord[]>;
}

/** A behaviour record as a dry run reads it. */
export interface HistoryRecord {
  id: string;
  customerId: string;
  action: string;
  at: number;
  createdAt: number;
  content: Record<string, unknown>;
}
