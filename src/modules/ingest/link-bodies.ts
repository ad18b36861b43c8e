import type { Insertable } from 'kysely';
import type { LinkViewDurationsTable, LinkViewLogsTable, LinksTable } from '../../db/index.ts';
import type { Clock } from '../../lib/time.ts';
import { randomToken } from '../../lib/secrets.ts';
import { type ParseContext, type References, TEXT_MAX, URL_MAX } from './bodies.ts';
import { BodyReader, ItemError } from './reader.ts';

/*
 * The bodies of links and their view logs (with their Duration items), as producers send them:
 * read and checked into rows, and the references they make (docs/ingestion.md).
 */

export interface ParsedLink {
  row: Insertable<LinksTable>;
  refs: References;
}

export function parseLink(body: Record<string, unknown>, c: ParseContext): ParsedLink {
  const r = new BodyReader(body, c.clock);
  r.matchId('id', c.domainId);
  r.matchApp(c.appId);
  const isDirectional = r.int('isDirectional', { oneOf: [0, 1] }) ?? 0;
  const customerId = r.id('customerId');
  if (isDirectional === 1 && customerId === null) throw new ItemError('customerId is required when isDirectional is 1');
  const shareToken = r.str('shareToken', { max: 128 });
  if (shareToken !== null && !/^[A-Za-z0-9_-]{1,128}$/.test(shareToken))
    throw new ItemError('shareToken must be URL-safe (A-Z a-z 0-9 _ -)');
  const tags = r.strings('tags', { maxItems: 50, max: 64 });
  const createdAt = r.time('createdAt') ?? c.now;
  const creatorId = r.userId('creatorId', { required: true }) as number;
  const clueId = r.str('clueId', { max: 64 });
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      creator_id: creatorId,
      name: r.str('name', { required: true }),
      short_name: r.str('shortName'),
      creator_name: r.str('creatorName'),
      conference_id: r.str('conferenceId', { max: 64 }),
      remark: r.str('remark', { max: TEXT_MAX }),
      file1: r.str('file1', { max: 128 }),
      file2: r.str('file2', { max: 128 }),
      file3: r.str('file3', { max: 128 }),
      file4: r.str('file4', { max: 128 }),
      form_type: r.str('formType', { max: 16 }) ?? '1',
      form_position: r.int('formPosition'),
      type: r.int('type', { required: true, oneOf: [1, 2, 3] }) as number,
      website: r.str('website', { max: URL_MAX }),
      clue_id: clueId,
      src: r.str('src', { max: 64 }) ?? 'link_view',
      form_pop_time: r.time('formPopTime'),
      is_directional: isDirectional,
      customer_id: isDirectional === 1 ? customerId : null,
      official_account_id: r.str('officialAccountId', { max: 64 }),
      weixin_grant_type: r.int('weixinGrantType', { oneOf: [0, 1] }),
      utm_source: r.str('utmSource'),
      utm_medium: r.str('utmMedium'),
      utm_campaign: r.str('utmCampaign'),
      utm_content: r.str('utmContent'),
      utm_term: r.str('utmTerm'),
      tags: tags ? JSON.stringify(tags) : null,
      share_token: shareToken ?? randomToken(16),
      read_seq: 0,
      created_at: createdAt,
      updated_at: r.time('updatedAt') ?? createdAt,
    },
    refs: {
      customerIds: isDirectional === 1 && customerId ? [customerId] : [],
      linkIds: [],
      scoped: clueId ? [{ table: 'clues', id: clueId, field: 'clueId' }] : [],
      memberIds: [{ id: creatorId, field: 'creatorId' }],
    },
  };
}

export interface ParsedViewLog {
  row: Omit<Insertable<LinkViewLogsTable>, 'seq'>;
  durations: Insertable<LinkViewDurationsTable>[];
  refs: References;
}

const MAX_DURATIONS = 1000;

/**
 * One Duration item of a view log (the interface's fields), stored at `position` among the view
 * log's durations: a batch's view log gives them in its order; the viewer updates a page's item in place.
 */
export function parseDuration(
  d: unknown,
  position: number,
  appId: string,
  viewLogId: string,
  clock: Clock,
): Insertable<LinkViewDurationsTable> {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new ItemError(`durations[${position}] must be an object`);
  const dr = new BodyReader(d as Record<string, unknown>, clock);
  try {
    const pageIndex = (d as Record<string, unknown>).pageIndex;
    const duration = (d as Record<string, unknown>).duration;
    return {
      app_id: appId,
      link_view_log_id: viewLogId,
      position,
      id: dr.id('id') ?? `${viewLogId}:${position}`,
      file_id: dr.str('fileId', { max: 128 }),
      file_name: dr.str('fileName'),
      file_url: dr.str('fileURL', { max: URL_MAX }),
      // Documented as strings; producers send numbers too.
      page_index: typeof pageIndex === 'number' && Number.isSafeInteger(pageIndex) ? String(pageIndex) : dr.str('pageIndex', { max: 16 }),
      duration: typeof duration === 'number' && Number.isSafeInteger(duration) ? String(duration) : dr.str('duration', { max: 16 }),
      sort_index: dr.int('sortIndex') ?? position,
      created_at: dr.time('createdAt'),
      ended_at: dr.time('endedAt'),
      total: dr.int('total', { min: 0 }),
    };
  } catch (err) {
    if (err instanceof ItemError) throw new ItemError(`durations[${position}].${err.message}`);
    throw err;
  }
}

export function parseViewLog(body: Record<string, unknown>, c: ParseContext): ParsedViewLog {
  const r = new BodyReader(body, c.clock);
  r.matchId('id', c.domainId);
  r.matchApp(c.appId);
  const linkId = r.id('linkId', { required: true }) as string;
  const rawDurations = body.durations;
  if (rawDurations !== undefined && rawDurations !== null && !Array.isArray(rawDurations))
    throw new ItemError('durations must be an array');
  const list = (rawDurations ?? []) as unknown[];
  if (list.length > MAX_DURATIONS) throw new ItemError(`durations must have at most ${MAX_DURATIONS} items`);
  const durations = list.map((d, i) => parseDuration(d, i, c.appId, c.domainId, c.clock));
  const leave = r.time('leaveTime');
  const clueId = r.str('clueId', { max: 64 });
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      link_id: linkId,
      viewer_id: r.str('viewerId', { max: 64 }),
      viewer_name: r.str('viewerName'),
      ip: r.str('ip', { max: 64 }),
      location: r.str('location'),
      system: r.str('system'),
      client: r.str('client'),
      clue_id: clueId,
      view_time: r.time('viewTime', { required: true }) as number,
      leave_time: leave === null ? null : c.clock.format(leave),
      spread_id: r.str('spreadId', { max: 64 }),
      utm_source: r.str('utmSource'),
      utm_medium: r.str('utmMedium'),
      utm_campaign: r.str('utmCampaign'),
      utm_content: r.str('utmContent'),
      utm_term: r.str('utmTerm'),
      total_duration: r.int('totalDuration', { min: 0 }),
      total_page: r.int('totalPage', { min: 0 }),
      created_at: c.now,
    },
    durations,
    refs: { customerIds: [], linkIds: [linkId], scoped: clueId ? [{ table: 'clues', id: clueId, field: 'clueId' }] : [], memberIds: [] },
  };
}
