import type {
  BehaviourLogsTable,
  CallsTable,
  CluesTable,
  LinkViewDurationsTable,
  LinkViewLogsTable,
  LinksTable,
  PostsTable,
} from '../../db/index.ts';
import type { Insertable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import { randomToken } from '../../lib/secrets.ts';
import { ACTION_NAME_RE, actionSpec, checkContent, taggedLinkOf } from '../behaviour/service.ts';
import { BodyReader, ItemError } from './reader.ts';

/**
 * One validator per domain type: reads a message body against its resource's documented fields
 * and returns the row to store plus the references that must resolve. Pure: no database access.
 */

export interface ParseContext {
  appId: string;
  domainId: string;
  clock: Clock;
  now: number;
}

/** Tables of records a body may name by id (their owners look the ids up: RecordOwners). */
export type ScopedTable = 'customers' | 'behaviour_logs' | 'calls' | 'links' | 'link_view_logs' | 'clues' | 'posts';

/** References an item makes; resolved against the database and earlier items of the batch. */
export interface References {
  /** Must be a customer of the project, stored or earlier in the batch. */
  customerIds: string[];
  /** Must be a link of the project, stored or earlier in the batch. */
  linkIds: string[];
  /**
   * Other records the body names (a view log's clue, a behaviour content's call or view log): an
   * id no project has is kept as given (its record may arrive later), but an id of another
   * project's record is refused.
   */
  scoped: { table: ScopedTable; id: string; field: string }[];
  /** Platform user ids the body names as the project's people: each must be (or have been) a member. */
  memberIds: { id: number; field: string }[];
}

/** Ids a behaviour content may carry, and the records they name. */
const CONTENT_REFERENCES: readonly (readonly [key: string, table: ScopedTable])[] = [
  ['linkId', 'links'],
  ['linkViewLogId', 'link_view_logs'],
  ['clueId', 'clues'],
  ['record_id', 'calls'],
  ['customer_id', 'customers'],
];

function contentReferences(content: Record<string, unknown> | null): References['scoped'] {
  if (content === null) return [];
  const refs: References['scoped'] = [];
  for (const [key, table] of CONTENT_REFERENCES) {
    const v = content[key];
    if (typeof v === 'string' && v !== '') refs.push({ table, id: v, field: `content.${key}` });
  }
  return refs;
}

/** A platform user id given as text (behaviour `svcUserId`), as a member reference. */
function memberText(value: string | null, field: string): References['memberIds'] {
  if (value === null || value === '') return [];
  if (!/^\d{1,10}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new ItemError(`${field} must be a platform user id`);
  return [{ id: Number(value), field }];
}

const CONTENT_MAX = 64 * 1024;
const TEXT_MAX = 4000;
const URL_MAX = 2048;

export interface ParsedBehaviour {
  row: Insertable<BehaviourLogsTable> & { web_access_log_id: string | null };
  /** Parsed content, for rollups (titles, link tags). */
  content: Record<string, unknown> | null;
  /** The link a link view names, for its tags. */
  linkId: string | null;
  refs: References;
  /** svcUserId was not given: filled with the customer's owner once resolved. */
  ownerFromCustomer: boolean;
}

export function parseBehaviour(body: Record<string, unknown>, c: ParseContext): ParsedBehaviour {
  const r = new BodyReader(body, c.clock);
  r.matchId('id', c.domainId);
  r.matchApp(c.appId);
  const customerId = r.id('customerId', { required: true }) as string;
  const action = r.str('action', { required: true, max: 64 }) as string;
  if (!ACTION_NAME_RE.test(action)) throw new ItemError('action must be 1-64 characters of a-z 0-9 _');
  const spec = actionSpec(action);
  if (spec?.team !== undefined) throw new ItemError(`action ${action} is written by Rapport only (a member's ${spec.team})`);
  let userType = r.int('userType', { oneOf: [0, 1] });
  if (spec) {
    if (userType === null) userType = spec.userTypes[0] ?? 0;
    else if (!spec.userTypes.includes(userType as 0 | 1)) throw new ItemError(`userType ${userType} is not valid for action ${action}`);
  }
  const contentText = r.str('content', { max: CONTENT_MAX });
  let content: Record<string, unknown> | null = null;
  if (contentText !== null && contentText !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(contentText);
    } catch {
      throw new ItemError('content must be a JSON string');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ItemError('content must be a JSON object string');
    content = parsed as Record<string, unknown>;
  }
  if (spec) {
    const problem = checkContent(spec, content ?? {});
    if (problem) throw new ItemError(`${problem} for action ${action}`);
  }
  const svcUser = r.str('svcUserId', { max: 64 });
  const when = r.time('when', { required: true }) as number;
  const createdTime = r.time('createdTime') ?? c.now;
  const linkId = taggedLinkOf(action, content);
  const webAccessLogId =
    (action === 'access_site' || action === 'web_page_view') && typeof content?.web_access_log_id === 'string'
      ? content.web_access_log_id.slice(0, 128)
      : null;
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      customer_id: customerId,
      svc_user_id: svcUser === '' ? null : svcUser,
      deal_user_id: r.str('dealUserId', { max: 64 }),
      customer_name: r.str('customerName'),
      action,
      params: r.str('params', { max: TEXT_MAX }),
      remote_duration: r.int('remote_duration', { min: 0 }),
      description: r.str('description', { max: TEXT_MAX }),
      when_at: when,
      content: contentText === '' ? null : contentText,
      client_name: r.str('clientName'),
      client_version: r.str('clientVersion'),
      os: r.str('os'),
      os_version: r.str('osVersion'),
      net: r.str('net'),
      ip: r.str('ip', { max: 64 }),
      location: r.str('location'),
      province: r.str('province'),
      city: r.str('city'),
      user_type: userType ?? 0,
      created_at: createdTime,
      web_access_log_id: webAccessLogId,
    },
    content,
    linkId,
    refs: {
      customerIds: [customerId],
      linkIds: linkId ? [linkId] : [],
      scoped: contentReferences(content),
      memberIds: memberText(svcUser, 'svcUserId'),
    },
    ownerFromCustomer: svcUser === null || svcUser === '',
  };
}

export interface ParsedCall {
  row: Insertable<CallsTable>;
  refs: References;
}

export function parseCall(body: Record<string, unknown>, c: ParseContext): ParsedCall {
  const r = new BodyReader(body, c.clock);
  r.matchId('id', c.domainId);
  r.matchApp(c.appId);
  const fromType = r.int('fromUserType', { required: true, oneOf: [1, 2] }) as number;
  const fromId = r.id('fromUserId', { required: true }) as string;
  const toType = r.int('toUserType', { required: true, oneOf: [1, 2] }) as number;
  const toId = r.id('toUserId', { required: true }) as string;
  const memberIds: References['memberIds'] = [];
  if (fromType === 2) memberIds.push({ id: r.userId('fromUserId') as number, field: 'fromUserId' });
  if (toType === 2) memberIds.push({ id: r.userId('toUserId') as number, field: 'toUserId' });
  const customerId = fromType === 1 ? fromId : toType === 1 ? toId : null;
  const callTime = r.time('callTime', { required: true }) as number;
  const endTime = r.time('endTime');
  if (endTime !== null && endTime < callTime) throw new ItemError('endTime must not be before callTime');
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      audio_url: r.str('audioUrl', { max: URL_MAX }),
      m4a_audio_url: r.str('m4aAudioUrl', { max: URL_MAX }),
      duration: r.int('duration', { min: 0, max: 10_000_000 }) ?? 0,
      call_status: r.int('callStatus', { required: true, oneOf: [0, 1] }) as number,
      audio_status: r.int('audioStatus', { oneOf: [0, 1, 2] }) ?? 0,
      call_time: callTime,
      end_time: endTime,
      async_task_id: r.str('asyncTaskId', { max: 128 }),
      from_user_type: fromType,
      from_user_id: fromId,
      to_user_type: toType,
      to_user_id: toId,
      photo_uri: r.str('photoURI', { max: URL_MAX }),
      name: r.str('name'),
      phone_num: r.str('phoneNum', { max: 64 }),
      customer_id: customerId,
      created_at: c.now,
    },
    refs: { customerIds: customerId ? [customerId] : [], linkIds: [], scoped: [], memberIds },
  };
}

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

const CLUE_FIELDS = ['formType', 'name', 'title', 'email', 'phone', 'company', 'website', 'interested', 'linkId', 'linkName', 'submitAt'];

export interface ParsedClue {
  row: Insertable<CluesTable>;
  refs: References;
}

export function parseClue(body: Record<string, unknown>, c: ParseContext): ParsedClue {
  const r = new BodyReader(body, c.clock);
  r.matchId('id', c.domainId);
  r.matchApp(c.appId);
  const linkId = r.id('linkId');
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (!CLUE_FIELDS.includes(k) && k !== 'id' && k !== 'appId' && k !== 'linkViewLogId') extra[k] = v;
  }
  const extraText = Object.keys(extra).length > 0 ? JSON.stringify(extra) : null;
  if (extraText !== null && extraText.length > CONTENT_MAX) throw new ItemError('the form has too many fields');
  const interested = body.interested;
  const viewLogId = r.id('linkViewLogId');
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      link_id: linkId,
      link_name: r.str('linkName'),
      link_view_log_id: viewLogId,
      form_type: typeof body.formType === 'number' ? String(body.formType) : r.str('formType', { max: 16 }),
      name: r.str('name'),
      title: r.str('title'),
      email: r.str('email'),
      phone: r.str('phone', { max: 64 }),
      company: r.str('company'),
      website: r.str('website', { max: URL_MAX }),
      interested:
        typeof interested === 'number' || typeof interested === 'boolean' ? String(interested) : r.str('interested', { max: TEXT_MAX }),
      extra: extraText,
      submit_at: r.time('submitAt') ?? c.now,
      created_at: c.now,
    },
    refs: {
      customerIds: [],
      linkIds: linkId ? [linkId] : [],
      scoped: viewLogId ? [{ table: 'link_view_logs', id: viewLogId, field: 'linkViewLogId' }] : [],
      memberIds: [],
    },
  };
}

export function parsePost(body: Record<string, unknown>, c: ParseContext): { row: Insertable<PostsTable>; refs: References } {
  const r = new BodyReader(body, c.clock);
  r.matchId('postId', c.domainId);
  r.matchApp(c.appId);
  const sendWay = r.str('sendWay', { max: 16 }) ?? 'email';
  if (sendWay !== 'email') throw new ItemError("sendWay must be 'email'");
  const count = (name: string) => r.int(name, { min: 0, max: 2147483647 }) ?? 0;
  const ownerId = r.userId('ownerId', { required: true }) as number;
  return {
    row: {
      id: c.domainId,
      app_id: c.appId,
      owner_id: ownerId,
      owner_name: r.str('ownerName'),
      title: r.str('title', { max: 1000 }),
      send_way: sendWay,
      send_time: r.time('sendTime', { required: true }) as number,
      sender_count: count('senderCount'),
      success_log_count: count('successLogCount'),
      view_log_count: count('viewLogCount'),
      view_log_user_count: count('viewLogUserCount'),
      link_view_log_count: count('linkViewLogCount'),
      link_view_log_user_count: count('linkViewLogUserCount'),
      return_log_count: count('returnLogCount'),
      return_log_user_count: count('returnLogUserCount'),
      created_at: c.now,
    },
    refs: { customerIds: [], linkIds: [], scoped: [], memberIds: [{ id: ownerId, field: 'ownerId' }] },
  };
}
