import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { publicFailure } from '../../http/errors.ts';
import { isEmail } from '../../lib/formats.ts';
import { isMobileNumber } from '../../lib/phones.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { AccessService } from '../access/service.ts';
import type { CustomerWritePath, ViewerCustomer } from '../customers/service.ts';
import type { IngestService, ViewerWrite } from '../ingest/service.ts';
import { type FormField, type LinkRow, formFieldsOf, tagsOf } from './mapper.ts';
import type { LinkRecords } from './records.ts';
import { linksRepository as repo } from './repository.ts';
import { DEFAULT_FORM_FIELDS, type VisitorRequest } from './viewer-model.ts';

/** Anonymous views a form joins to its customer at most (the visitor's newest in the project). */
const JOIN_MAX_VIEWS = 500;

/** A form's fields as read (trimmed, checked). */
export type FormValues = Partial<Record<FormField, string>>;

/** A form sent: its fields, its kind (`1` the link's form, `2` the e-mail gate), the view it was filled in, if any. */
export interface FormEntry {
  fields: FormValues;
  formType: '1' | '2';
  viewId: string | null;
  /** The e-mail address was proved by the code mailed to it (the gate's verification). */
  verified?: boolean;
}

/** A form being written: its entry, its time and its clue's id. */
interface Sent extends FormEntry {
  now: number;
  clueId: string;
}

/**
 * Reads the form's fields (the link's, or `only` those a gate asks), checked for their format: a
 * mobile number as the customers API takes it, for the project's `region` (docs/customers.md).
 */
export function readFormFields(link: LinkRow, body: Record<string, unknown>, opts: { region: string; only?: FormField[] }): FormValues {
  const allowed = opts.only ?? formFieldsOf(link, DEFAULT_FORM_FIELDS);
  const out: FormValues = {};
  for (const f of allowed) {
    const v = body[f];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw publicFailure('form_invalid', `${f} must be text`);
    const text = v.trim();
    if (text === '') continue;
    if (text.length > (f === 'interested' ? 4000 : 255)) throw publicFailure('form_invalid', `${f} is too long`);
    if (f === 'email' && !isEmail(text)) throw publicFailure('form_invalid', 'email is not a valid e-mail address');
    if (f === 'phone' && !isMobileNumber(text, opts.region)) throw publicFailure('form_invalid', 'phone is not a valid mobile number');
    out[f] = text;
  }
  if (out.email === undefined && out.phone === undefined && out.name === undefined) {
    throw publicFailure('form_invalid', 'Give at least a name, an e-mail address or a mobile number');
  }
  return out;
}

/**
 * What a visitor's form writes (docs/links.md, "Who is viewing"), for the viewer's form and e-mail
 * gate: a clue; the customer matched by mobile number or e-mail, or made (the link's creator its
 * owner); the visitor tied to it and its earlier anonymous views joined to it. Written through the
 * ingestion service's write path in one transaction.
 */
export function createLinkForms(
  ctx: AppContext,
  deps: {
    access: Pick<AccessService, 'memberRecord' | 'projectCreator'>;
    customers: Pick<CustomerWritePath, 'viewerCustomers' | 'fromForm' | 'viewerCustomerByContact'>;
    ingest: Pick<IngestService, 'recordViewer'>;
    records: LinkRecords;
  },
) {
  const { access, customers, ingest, records } = deps;
  const { clock } = ctx;

  /** Whose a form's new customer is: the link's creator while an active member, else the project's creator. */
  async function ownerFor(link: LinkRow): Promise<number | null> {
    if (link.creator_id !== null) {
      const record = await access.memberRecord(link.app_id, link.creator_id).catch(() => null);
      if (record !== null && record.status === 0) return link.creator_id;
    }
    return access.projectCreator(link.app_id);
  }

  /**
   * Whether the visitor's tie to the form's customer is verified: the address was proved and names that
   * customer (a directed link's customer only when it is theirs).
   */
  async function verifiedTie(link: LinkRow, sent: Sent, customer: ViewerCustomer): Promise<boolean> {
    if (sent.verified !== true || sent.fields.email === undefined) return false;
    if (link.is_directional !== 1 || link.customer_id === null) return true;
    return (await customers.viewerCustomerByContact(link.app_id, null, sent.fields.email))?.id === customer.id;
  }

  /** The form's customer: the directed link's, else the one matched or made from the fields (none without an owner). */
  async function formCustomer(trx: Transaction<Database>, link: LinkRow, visitor: VisitorRequest, sent: Sent) {
    if (link.is_directional === 1 && link.customer_id !== null) {
      return (await customers.viewerCustomers(link.app_id, [link.customer_id])).get(link.customer_id) ?? null;
    }
    const owner = await ownerFor(link);
    const input: Record<string, unknown> = {};
    for (const f of ['name', 'email', 'phone', 'company', 'title'] as const) if (sent.fields[f] !== undefined) input[f] = sent.fields[f];
    if (input.name === undefined && typeof input.email === 'string') input.name = input.email.split('@')[0];
    input.deal_user_id = visitor.visitorId;
    const made = owner === null ? null : await customers.fromForm(trx, link.app_id, { input, ownerId: owner, now: sent.now });
    return made?.customer ?? null;
  }

  function clueItem(link: LinkRow, sent: Sent) {
    const { fields } = sent;
    return {
      id: sent.clueId,
      body: {
        linkId: link.id,
        linkName: link.name,
        linkViewLogId: sent.viewId,
        formType: sent.formType,
        name: fields.name ?? null,
        title: fields.title ?? null,
        email: fields.email ?? null,
        phone: fields.phone ?? null,
        company: fields.company ?? null,
        website: fields.website ?? null,
        interested: fields.interested ?? null,
        submitAt: clock.format(sent.now),
      },
    };
  }

  /** The visitor's earlier views, anonymous until now, become the customer's: their records as they happened. */
  async function joinEarlierViews(trx: Transaction<Database>, customer: ViewerCustomer, visitor: VisitorRequest, write: ViewerWrite) {
    const views = await repo.anonymousViews(trx, write.appId, visitor.visitorId, JOIN_MAX_VIEWS);
    for (const v of views) {
      const link = { id: v.link_id, type: v.link_type, name: v.link_name, src: v.link_src };
      const content = { ...records.linkRef(link), linkViewLogId: v.id };
      write.behaviours?.push(
        records.behaviour(customer, { visitorId: v.visitor_id, action: 'link_view_log', when: v.view_time, content, env: null }),
      );
      for (const d of v.durations) {
        write.behaviours?.push(
          records.behaviour(customer, {
            visitorId: v.visitor_id,
            action: 'file_view_duration',
            when: d.created_at ?? v.view_time,
            content: { fileViewDurationId: d.id, linkViewLogId: v.id, ...records.linkRef(link), page: Number(d.page_index) },
            env: null,
          }),
        );
      }
      if (v.left_at !== null)
        write.behaviours?.push(records.leave(customer, { link, view: { ...v, left_at: null }, at: v.left_at, env: null }));
    }
    write.attribute = { viewLogIds: views.map((v) => v.id), customerId: customer.id, viewerName: customer.name };
  }

  /** The clue of a form, and what follows for its customer; in `trx`. */
  async function write(trx: Transaction<Database>, link: LinkRow, visitor: VisitorRequest, sent: Sent): Promise<void> {
    const env = ctx.visitors.describe(visitor.userAgent, visitor.ip);
    const customer = await formCustomer(trx, link, visitor, sent);
    const w: ViewerWrite = { appId: link.app_id, now: sent.now, linkTags: tagsOf(link), clues: [clueItem(link, sent)], behaviours: [] };
    if (sent.viewId !== null) w.viewClue = { viewLogId: sent.viewId, clueId: sent.clueId, email: sent.fields.email ?? null };
    if (customer !== null) {
      // A tie the visitor proved stays: an unverified form names its customer (the clue) without moving the visitor.
      const verified = await verifiedTie(link, sent, customer);
      if (await repo.tieVisitor(trx, link.app_id, visitor.visitorId, customer.id, sent.now, verified)) {
        await joinEarlierViews(trx, customer, visitor, w);
      }
      const content = { linkId: link.id, linkType: link.type, linkViewLogId: sent.viewId ?? '', clueId: sent.clueId };
      w.behaviours?.push(
        records.behaviour(customer, { visitorId: visitor.visitorId, action: 'link_view_clue', when: sent.now, content, env }),
      );
    }
    await ingest.recordViewer(w, trx);
  }

  return {
    /** Writes a form of the link sent by the visitor, in one transaction. */
    async submit(link: LinkRow, visitor: VisitorRequest, entry: FormEntry): Promise<void> {
      const sent: Sent = { ...entry, now: clock.now(), clueId: timeOrderedUuid() };
      await ctx.database.db.transaction().execute((trx) => write(trx, link, visitor, sent));
    },
  };
}

export type LinkForms = ReturnType<typeof createLinkForms>;
