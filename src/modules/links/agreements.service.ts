import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { failure } from '../../http/errors.ts';
import { timeOrderedUuid } from '../../lib/ids.ts';
import type { Actor } from '../access/service.ts';
import type { AuditRecorder } from '../audit/service.ts';
import { BOM, csvLine } from '../../lib/csv.ts';
import { type AcceptanceRow, agreementsRepository as repo } from './agreements.repository.ts';
import type { LinkRow } from './mapper.ts';
import { linksRepository } from './repository.ts';
import type { VisitorRequest } from './viewer-model.ts';

/** Rows the CSV reads at a time. */
const CSV_BATCH = 1000;
/** A user agent is kept up to this many characters. */
const USER_AGENT_MAX = 512;

/** Who accepted: the gate's address and name when known, the name typed on the agreement page otherwise. */
export interface Acceptor {
  email: string | null;
  name: string | null;
}

/** SHA-256 of an agreement's text, in hex: what an acceptance says was accepted. */
export const agreementHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const CSV_HEADER = ['accepted_at', 'version', 'text_hash', 'email', 'name', 'visitor_id', 'view_id', 'ip', 'user_agent', 'id'];

/**
 * Links' agreements (docs/links.md, "The agreement"): an acceptance recorded when a reader agrees
 * (its version and the text's hash, who, when, from where), and the members who may edit the link
 * list them, as JSON pages or as CSV (formula-neutralised, as the customer export; each CSV recorded in
 * the audit log).
 */
export function createLinkAgreements(ctx: AppContext, deps: { audit: AuditRecorder }) {
  const { clock } = ctx;
  const db = ctx.database.db;

  /** A link of the project the actor may edit (Master and Admin any, Sales their own); else link_not_found. */
  async function editable(actor: Actor, linkId: string): Promise<LinkRow> {
    const link = await linksRepository.find(db, actor.app.id, linkId);
    if (!link || (!actor.isManager && link.creator_id !== actor.userId)) throw failure('link_not_found');
    return link;
  }

  const record = (r: AcceptanceRow) => ({
    id: r.id,
    linkId: r.link_id,
    version: r.version,
    textHash: r.text_hash,
    email: r.email,
    name: r.name,
    visitorId: r.visitor_id,
    viewId: r.view_id,
    acceptedAt: clock.format(r.accepted_at) as string,
    ip: r.ip,
    userAgent: r.user_agent,
  });

  async function* csvLines(link: LinkRow): AsyncGenerator<string> {
    yield BOM + csvLine(CSV_HEADER);
    let before: { at: number; id: string } | undefined;
    for (;;) {
      const rows = await repo.page(db, link.app_id, link.id, { offset: 0, limit: CSV_BATCH, ...(before ? { before } : {}) });
      for (const r of rows) {
        yield csvLine([
          clock.format(r.accepted_at),
          r.version,
          r.text_hash,
          r.email,
          r.name,
          r.visitor_id,
          r.view_id,
          r.ip,
          r.user_agent,
          r.id,
        ]);
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < CSV_BATCH) return;
      before = { at: Number(last.accepted_at), id: last.id };
    }
  }

  return {
    /** Records that the visitor accepted the link's agreement as it stands (its version and text). */
    async accept(link: LinkRow & { agreement: string }, visitor: VisitorRequest, who: Acceptor): Promise<void> {
      const env = ctx.visitors.describe(visitor.userAgent, visitor.ip);
      await repo.insert(db, {
        id: timeOrderedUuid(),
        app_id: link.app_id,
        link_id: link.id,
        version: link.agreement_version,
        text_hash: agreementHash(link.agreement),
        email: who.email,
        name: who.name,
        visitor_id: visitor.visitorId,
        accepted_at: clock.now(),
        ip: env.ip,
        user_agent: visitor.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      });
    },

    /** A page of the link's acceptances, newest first. */
    async list(actor: Actor, req: { linkId: string; offset: number; limit: number }) {
      const link = await editable(actor, req.linkId);
      return (await repo.page(db, link.app_id, link.id, { offset: req.offset, limit: req.limit })).map(record);
    },

    /** Every acceptance of the link as CSV, newest first, read in batches as it is sent; recorded in the audit log. */
    async csv(actor: Actor, req: { linkId: string }): Promise<Readable> {
      const link = await editable(actor, req.linkId);
      await deps.audit(db, {
        appId: link.app_id,
        actorId: actor.userId,
        action: 'link.agreements_export',
        targetType: 'link',
        targetId: link.id,
        detail: { format: 'csv' },
      });
      return Readable.from(csvLines(link));
    },
  };
}

export type LinkAgreements = ReturnType<typeof createLinkAgreements>;
