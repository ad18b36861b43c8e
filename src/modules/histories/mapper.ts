import type { CallsTable, CluesTable, LinkViewDurationsTable, LinkViewLogsTable, LinksTable, PostsTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';
import type { Clock } from '../../lib/time.ts';
import type { CustomerRow } from './repository.ts';

type CallRow = Selectable<CallsTable>;
type LinkRow = Selectable<LinksTable>;
type ViewLogRow = Selectable<LinkViewLogsTable>;
/** A page turn as a view log carries it (its project is the view log's). */
type DurationRow = Omit<Selectable<LinkViewDurationsTable>, 'app_id'>;
type PostRow = Selectable<PostsTable>;
type ClueRow = Selectable<CluesTable>;

/** The customer object of a call record (the interface's field list for it). */
export function toCallCustomer(c: CustomerRow, clock: Clock) {
  return {
    id: c.id,
    appId: c.app_id,
    name: c.name,
    title: c.title,
    email: c.email,
    phone: c.phone,
    company: c.company,
    status: c.status,
    mergedCustomerId: c.merged_customer_id ?? '',
    headportraitUrl: c.headportrait_url,
    groupId: c.group_id,
    sex: c.sex,
    address: c.address,
    ageState: c.age_state,
    fixedPhone: c.fixed_phone,
    createdAt: clock.format(c.created_at),
    updatedAt: clock.format(c.updated_at),
  };
}

/** The customer object of a directed link. */
export function toLinkCustomer(c: CustomerRow, clock: Clock) {
  return {
    id: c.id,
    appId: c.app_id,
    name: c.name,
    title: c.title,
    email: c.email,
    phone: c.phone,
    mergedCustomerId: c.merged_customer_id ?? '',
    headportraitUrl: c.headportrait_url,
    createdAt: clock.format(c.created_at),
    updatedAt: clock.format(c.updated_at),
  };
}

export function toCall(r: CallRow, customer: CustomerRow | undefined, clock: Clock) {
  return {
    id: r.id,
    appId: r.app_id,
    audioUrl: r.audio_url,
    m4aAudioUrl: r.m4a_audio_url,
    duration: r.duration,
    callStatus: r.call_status,
    audioStatus: r.audio_status,
    callTime: clock.format(r.call_time),
    endTime: clock.format(r.end_time),
    asyncTaskId: r.async_task_id,
    fromUserType: r.from_user_type,
    fromUserId: r.from_user_id,
    toUserType: r.to_user_type,
    toUserId: r.to_user_id,
    photoURI: r.photo_uri,
    name: r.name,
    phoneNum: r.phone_num,
    customer: customer ? toCallCustomer(customer, clock) : null,
  };
}

export interface LinkCounters {
  views: number;
  viewers: number;
  newViews: number;
  newViewers: number;
  clues: number;
}

/** The form's fields when a link names none (docs/links.md). */
export const DEFAULT_FORM_FIELDS = ['name', 'email', 'phone', 'company'];

/** Where a link is opened: its project's public base (share domain, else PUBLIC_BASE_URL) + /l/ + share token. */
export const linkUrl = (base: string, shareToken: string) => `${base}/l/${encodeURIComponent(shareToken)}`;

export function toLink(
  r: LinkRow,
  counters: LinkCounters | undefined,
  customer: CustomerRow | undefined,
  clock: Clock,
  url: string | undefined,
) {
  const c = counters ?? { views: 0, viewers: 0, newViews: 0, newViewers: 0, clues: 0 };
  return {
    id: r.id,
    appId: r.app_id,
    name: r.name,
    shortName: r.short_name,
    creatorId: r.creator_id === null ? null : String(r.creator_id),
    creatorName: r.creator_name,
    conferenceId: r.conference_id,
    remark: r.remark,
    file1: r.file1,
    file2: r.file2,
    file3: r.file3,
    file4: r.file4,
    shareToken: r.share_token,
    formType: r.form_type,
    formPosition: r.form_position,
    type: r.type,
    website: r.website,
    clueId: r.clue_id,
    src: r.src,
    formPopTime: clock.format(r.form_pop_time),
    isDirectional: r.is_directional,
    customerId: r.customer_id,
    newViewCount: c.newViews,
    newViewerCount: c.newViewers,
    createdAt: clock.format(r.created_at),
    updatedAt: clock.format(r.updated_at),
    officialAccountId: r.official_account_id,
    weixinGrantType: r.weixin_grant_type,
    utmSource: r.utm_source,
    utmMedium: r.utm_medium,
    utmCampaign: r.utm_campaign,
    utmContent: r.utm_content,
    utmTerm: r.utm_term,
    linkViewLogCount: c.views,
    clueCount: c.clues,
    viewerCount: c.viewers,
    tags: r.tags ? (JSON.parse(r.tags) as string[]) : [],
    status: r.status,
    expiresAt: clock.format(r.expires_at),
    hasPasscode: r.passcode_hash !== null,
    allowDownload: r.allow_download,
    emailGate: r.email_gate,
    title: r.title,
    embed: r.embed,
    watermark: r.watermark,
    roomId: r.room_id,
    formFields: r.form_fields ? (JSON.parse(r.form_fields) as string[]) : DEFAULT_FORM_FIELDS,
    emailVerify: r.email_verify,
    allowList: r.allow_list ? (JSON.parse(r.allow_list) as string[]) : [],
    denyList: r.deny_list ? (JSON.parse(r.deny_list) as string[]) : [],
    agreement: r.agreement,
    agreementVersion: r.agreement_version,
    ...(url !== undefined ? { url } : {}),
    ...(r.is_directional === 1 ? { customer: customer ? toLinkCustomer(customer, clock) : null } : {}),
  };
}

export function toDuration(d: DurationRow, clock: Clock) {
  return {
    id: d.id,
    fileId: d.file_id,
    fileName: d.file_name,
    fileURL: d.file_url,
    pageIndex: d.page_index,
    duration: d.duration,
    linkViewLogId: d.link_view_log_id,
    sortIndex: d.sort_index,
    createdAt: clock.format(d.created_at),
    endedAt: clock.format(d.ended_at),
    total: d.total,
  };
}

export function toViewLog(r: ViewLogRow, linkName: string | null, durations: DurationRow[], canBeCreateCustomer: boolean, clock: Clock) {
  return {
    id: r.id,
    viewerId: r.viewer_id,
    viewerName: r.viewer_name,
    ip: r.ip,
    location: r.location,
    system: r.system,
    client: r.client,
    linkId: r.link_id,
    linkName,
    clueId: r.clue_id,
    viewTime: clock.format(r.view_time),
    leaveTime: r.leave_time,
    spreadId: r.spread_id,
    utmSource: r.utm_source,
    utmMedium: r.utm_medium,
    utmCampaign: r.utm_campaign,
    utmContent: r.utm_content,
    utmTerm: r.utm_term,
    totalDuration: r.total_duration,
    totalPage: r.total_page,
    canBeCreateCustomer,
    durations: durations.map((d) => toDuration(d, clock)),
  };
}

export function toPost(r: PostRow, clock: Clock) {
  return {
    appId: r.app_id,
    ownerId: r.owner_id === null ? null : String(r.owner_id),
    ownerName: r.owner_name,
    postId: r.id,
    title: r.title,
    sendWay: r.send_way,
    sendTime: clock.format(r.send_time),
    senderCount: r.sender_count,
    successLogCount: r.success_log_count,
    viewLogCount: r.view_log_count,
    viewLogUserCount: r.view_log_user_count,
    linkViewLogCount: r.link_view_log_count,
    linkViewLogUserCount: r.link_view_log_user_count,
    returnLogCount: r.return_log_count,
    returnLogUserCount: r.return_log_user_count,
  };
}

/** The clue object of a behaviour record: the documented fields, then the form's own extra fields. */
export function toClue(r: ClueRow, clock: Clock) {
  const extra = r.extra ? (JSON.parse(r.extra) as Record<string, unknown>) : {};
  return {
    ...extra,
    id: r.id,
    formType: r.form_type,
    name: r.name,
    title: r.title,
    email: r.email,
    phone: r.phone,
    company: r.company,
    website: r.website,
    interested: r.interested,
    linkId: r.link_id,
    linkName: r.link_name,
    submitAt: clock.format(r.submit_at),
  };
}
