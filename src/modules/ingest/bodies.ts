import type { BehaviourLogsTable, CallsTable, CluesTable, PostsTable } from '../../db/index.ts';
import type { Insertable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
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
export const TEXT_MAX = 4000;
export const URL_MAX = 2048;

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
