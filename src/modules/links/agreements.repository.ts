import type { Database } from '../../db/index.ts';
import type { Insertable, Kysely, Selectable } from 'kysely';

type Db = Kysely<Database>;

/** An acceptance as stored, with the view the visitor read the document in after it (null: none yet). */
export type AcceptanceRow = Selectable<Database['link_agreement_acceptances']> & { view_id: string | null };

/** SQL of the acceptances of links' agreements (agreements.service.ts). */
export const agreementsRepository = {
  async insert(db: Db, row: Insertable<Database['link_agreement_acceptances']>): Promise<void> {
    await db.insertInto('link_agreement_acceptances').values(row).execute();
  },

  /**
   * The link's acceptances, newest first (`before`: after this one, for the next batch), each with its
   * view: the visitor's first view of the link still read at or after the acceptance (a reload within
   * 30 minutes continues a view begun before it).
   */
  page(db: Db, appId: string, linkId: string, page: { offset: number; limit: number; before?: { at: number; id: string } }) {
    let q = db
      .selectFrom('link_agreement_acceptances as a')
      .selectAll('a')
      .select((eb) =>
        eb
          .selectFrom('link_view_logs as v')
          .select('v.id')
          .where('v.app_id', '=', appId)
          .whereRef('v.link_id', '=', 'a.link_id')
          .whereRef('v.visitor_id', '=', 'a.visitor_id')
          .where((w) => w.or([w('v.view_time', '>=', w.ref('a.accepted_at')), w('v.beacon_at', '>=', w.ref('a.accepted_at'))]))
          .orderBy('v.view_time')
          .orderBy('v.id')
          .limit(1)
          .as('view_id'),
      )
      .where('a.app_id', '=', appId)
      .where('a.link_id', '=', linkId);
    const before = page.before;
    if (before !== undefined) {
      q = q.where((eb) =>
        eb.or([eb('a.accepted_at', '<', before.at), eb.and([eb('a.accepted_at', '=', before.at), eb('a.id', '<', before.id)])]),
      );
    }
    return q.orderBy('a.accepted_at', 'desc').orderBy('a.id', 'desc').offset(page.offset).limit(page.limit).execute() as Promise<
      AcceptanceRow[]
    >;
  },
};
