/**
 * The behaviour action vocabulary (docs/interface.md §12), one typed table: each known action's content
 * shape, which overview counter it feeds, and which overview list it adds to. docs/actions.md is
 * the prose form of this table; keep the two in step.
 */

/** s string · i integer · n number · b boolean · o object · * any JSON value. A trailing ! marks a required field. */
export type FieldType = 's' | 'i' | 'n' | 'b' | 'o' | '*';
export type FieldSpec = FieldType | `${FieldType}!`;

export type OverviewCounter =
  | 'linkCount'
  | 'clueCount'
  | 'callCount'
  | 'smsCount'
  | 'sendCount'
  | 'accessSiteCount'
  | 'remoteDemoCount'
  | 'appLaunchCount'
  | 'submitFormCount'
  | 'downloadFileCount'
  | 'playMediaCount'
  | 'contactServiceCount'
  | 'appSubmitFormCount'
  | 'appDownloadFileCount'
  | 'appPlayMediaCount'
  | 'appContactServiceCount'
  | 'appViewAppPageCount';

export const OVERVIEW_COUNTERS: readonly OverviewCounter[] = [
  'linkCount',
  'clueCount',
  'callCount',
  'smsCount',
  'sendCount',
  'accessSiteCount',
  'remoteDemoCount',
  'appLaunchCount',
  'submitFormCount',
  'downloadFileCount',
  'playMediaCount',
  'contactServiceCount',
  'appSubmitFormCount',
  'appDownloadFileCount',
  'appPlayMediaCount',
  'appContactServiceCount',
  'appViewAppPageCount',
];

/** Overview lists: access_site by title (else site), view_app_page by title, link views by link tag. */
export type OverviewList = 'site' | 'app_page' | 'tag';

export interface ActionSpec {
  /** The user types (0 visitor, 1 customer) the action is recorded under. */
  userTypes: readonly (0 | 1)[];
  /** Fields of the content object; fields not listed are kept as given. */
  content: Readonly<Record<string, FieldSpec>>;
  counter?: OverviewCounter;
  list?: OverviewList;
  /**
   * The action whose activity this record is a part of (a page turn of a reading, the end of a call):
   * such records are not counted in the overview's `total`, which counts customer activity.
   */
  partOf?: string;
  /** A record the team's own bookkeeping writes (creation, merge): not customer activity either. */
  bookkeeping?: true;
  /**
   * A record only Rapport writes, for a member's note or task on the customer (the tasks module): refused
   * at ingestion, never counted, joined to its note or task in the behaviour list.
   */
  team?: 'note' | 'task';
  description: string;
}

const V = [0] as const;
const C = [1] as const;
const VC = [0, 1] as const;

const SITE_VISIT = {
  web_access_log_id: 's!',
  title: 's',
  url: 's',
  site: 's',
  system: 's',
  keyword: 's',
  client: 's',
  referrer: 's',
  ip: 's',
} as const;
const LINK_ONLY = { linkId: 's!' } as const;
const CUSTOMER_ID = { customer_id: 's' } as const;
const PAGE_KEY = { web_page_behaviour_log_id: 's' } as const;
const APP_PAGE_KEY = { app_page_behaviour_log_id: 's' } as const;
const REMOTE_DEMO = { sendUser: 'o', conference: 'o', userType: 'i', userId: 's', userName: 's', appId: 's', remoteDemoId: 's' } as const;

export const ACTIONS = {
  // Visitor behaviour (userType 0)
  access_site: { userTypes: V, content: SITE_VISIT, counter: 'accessSiteCount', list: 'site', description: 'site visit' },
  access_site_end: {
    userTypes: V,
    content: { web_access_log_id: 's!', site: 's', referrer: 's', referrerTitle: 's', viewTime: 's', leaveTime: 's' },
    partOf: 'access_site',
    description: 'site visit end',
  },
  web_page_view: {
    userTypes: V,
    content: { web_access_log_id: 's!', url: 's', title: 's' },
    partOf: 'access_site',
    description: 'page view',
  },
  web_page_behaviour: { userTypes: V, content: { web_page_behaviour_log_id: 's!' }, description: 'page key behaviour' },
  web_page_leave: {
    userTypes: V,
    content: {
      web_access_log_id: 's!',
      web_page_view_log_id: 's',
      url: 's',
      title: 's',
      viewTime: 's',
      leaveTime: 's',
      lastLeaveTime: 's',
    },
    partOf: 'access_site',
    description: 'page leave',
  },
  link_view_log: {
    userTypes: V,
    content: { linkId: 's!', linkType: 'i', linkViewLogId: 's', title: 's', linkSrc: 's' },
    counter: 'linkCount',
    list: 'tag',
    description: 'material (link) view',
  },
  file_view_duration: {
    userTypes: V,
    content: { fileViewDurationId: 's', linkViewLogId: 's!' },
    partOf: 'link_view_log',
    description: 'material page turn',
  },
  link_view_clue: {
    userTypes: V,
    content: { linkId: 's!', linkType: 'i', linkViewLogId: 's', clueId: 's!' },
    counter: 'clueCount',
    description: 'material form fill',
  },
  link_leave_log: {
    userTypes: V,
    content: {
      linkId: 's!',
      linkType: 'i',
      linkViewLogId: 's',
      title: 's',
      linkSrc: 's',
      viewTime: 's',
      leaveTime: 's',
      lastLeaveTime: 's',
    },
    partOf: 'link_view_log',
    description: 'material leave',
  },
  link_spread: { userTypes: V, content: { linkId: 's', linkViewLogId: 's' }, description: 'material spread' },
  call: { userTypes: VC, content: { record_id: 's!' }, counter: 'callCount', description: 'call' },
  call_end: { userTypes: VC, content: { record_id: 's!', duration: 'i' }, partOf: 'call', description: 'call end' },
  remote_demo: { userTypes: VC, content: REMOTE_DEMO, counter: 'remoteDemoCount', description: 'remote demo' },
  app_launch: { userTypes: V, content: { app_launch_id: 's' }, counter: 'appLaunchCount', description: 'app launch' },
  app_launch_end: {
    userTypes: V,
    content: { appLaunchId: 's', viewTime: 's', leaveTime: 's', lastLeaveTime: 's' },
    partOf: 'app_launch',
    description: 'app launch end',
  },
  view_app_page: {
    userTypes: V,
    content: { app_page_view_log_id: 's', title: 's' },
    counter: 'appViewAppPageCount',
    list: 'app_page',
    description: 'app page view',
  },
  app_page_behaviour: { userTypes: V, content: { app_page_behaviour_log_id: 's!' }, description: 'app page key behaviour' },
  entry_app: { userTypes: V, content: {}, description: 'open app (fields not documented)' },
  exit_app: { userTypes: V, content: {}, description: 'exit app (fields not documented)' },
  scan_activity_qrcode: {
    userTypes: V,
    content: {
      isNewFans: 'b',
      activityId: 's',
      activityName: 's',
      openid: 's',
      origin: 's',
      new_fans_push: 'b',
      officialAccountId: 's',
      officialAccountName: 's',
    },
    description: 'scan activity QR code',
  },
  scan_promotion_plan_qrcode: {
    userTypes: V,
    content: {
      isNewFans: 'b',
      isPromotionPlanNewFans: 'b',
      promotionPlanId: 's',
      promotionPlanName: 's',
      openid: 's',
      origin: 's',
      new_fans_push: 'b',
      officialAccountId: 's',
      officialAccountName: 's',
      promotionCustomerId: 's',
      promotionOpenid: 's',
    },
    description: 'scan promotion-plan QR code',
  },
  trigger_promotion_plan: {
    userTypes: V,
    content: { promotionPlanId: 's', promotionPlanName: 's', openid: 's' },
    description: 'promotion plan triggered',
  },
  pull_fans_reward: {
    userTypes: V,
    content: {
      promotionPlanId: 's',
      promotionPlanName: 's',
      openid: 's',
      pullFansCount: 'i',
      officialAccountId: 's',
      officialAccountName: 's',
    },
    description: 'fan-pulling reward',
  },
  submit_form: { userTypes: V, content: PAGE_KEY, counter: 'submitFormCount', description: 'key behaviour: form submitted on a site' },
  download_file: { userTypes: V, content: PAGE_KEY, counter: 'downloadFileCount', description: 'key behaviour: file downloaded' },
  play_media: { userTypes: V, content: PAGE_KEY, counter: 'playMediaCount', description: 'key behaviour: media played' },
  contact_service: {
    userTypes: V,
    content: PAGE_KEY,
    counter: 'contactServiceCount',
    description: 'key behaviour: customer service contacted',
  },
  app_submit_form: { userTypes: V, content: APP_PAGE_KEY, counter: 'appSubmitFormCount', description: 'app key behaviour: form submitted' },
  app_download_file: {
    userTypes: V,
    content: APP_PAGE_KEY,
    counter: 'appDownloadFileCount',
    description: 'app key behaviour: file downloaded',
  },
  app_play_media: { userTypes: V, content: APP_PAGE_KEY, counter: 'appPlayMediaCount', description: 'app key behaviour: media played' },
  app_contact_service: {
    userTypes: V,
    content: APP_PAGE_KEY,
    counter: 'appContactServiceCount',
    description: 'app key behaviour: customer service contacted',
  },
  // Customer behaviour (userType 1)
  create: { userTypes: C, content: {}, bookkeeping: true, description: 'customer creation (content: the customer object)' },
  send_message: { userTypes: C, content: {}, counter: 'smsCount', description: 'sms sent' },
  weixin_follow: { userTypes: C, content: { officialAccountId: 's' }, description: 'follow official account' },
  cancel_weixin_follow: { userTypes: C, content: { officialAccountId: 's' }, description: 'unfollow official account' },
  weixin_send_text: { userTypes: C, content: { text: 's', officialAccountId: 's' }, description: 'fan text message to official account' },
  chat_record: { userTypes: C, content: { chat_content: 's', customer_id: 's' }, description: 'customer-service chat record' },
  visit_record: { userTypes: C, content: CUSTOMER_ID, description: 'visit record' },
  customer_record: { userTypes: C, content: CUSTOMER_ID, description: 'quick customer record' },
  attend_meeting_record: { userTypes: C, content: CUSTOMER_ID, description: 'meeting attendance record' },
  weixin_menu_click: {
    userTypes: C,
    content: { event: 's', eventKey: 's', officialAccountId: 's' },
    description: 'official account menu click',
  },
  weixin_scan_qrcode: {
    userTypes: C,
    content: { eventKey: 's', origin: 's', event: 's', officialAccountId: 's' },
    description: 'scan QR code',
  },
  audio_record: { userTypes: C, content: { audio_record_id: 's', customer_id: 's' }, description: 'audio record' },
  send_data_by_mail: { userTypes: C, content: LINK_ONLY, counter: 'sendCount', description: 'material sent by e-mail' },
  send_data_by_other_way: { userTypes: C, content: LINK_ONLY, counter: 'sendCount', description: 'material sent another way' },
  send_data_by_wechat: { userTypes: C, content: LINK_ONLY, counter: 'sendCount', description: 'material sent by messaging link' },
  send_data_by_officialaccount: {
    userTypes: C,
    content: LINK_ONLY,
    counter: 'sendCount',
    description: 'material sent by official account',
  },
  send_data_by_sms: { userTypes: C, content: LINK_ONLY, counter: 'sendCount', description: 'material sent by sms' },
  customer_merged: { userTypes: C, content: {}, bookkeeping: true, description: 'customer merge (content: the customer object)' },
  deal_record: { userTypes: C, content: { money: 'n', deal_id: 's', customer_id: 's' }, description: 'deal record' },
  member_note: {
    userTypes: C,
    content: { note_id: 's!', author_id: 'i' },
    bookkeeping: true,
    team: 'note',
    description: "a member's note on the customer (Rapport's own; the list joins the note)",
  },
  member_task: {
    userTypes: C,
    content: { task_id: 's!', creator_id: 'i' },
    bookkeeping: true,
    team: 'task',
    description: "a task made about the customer (Rapport's own; the list joins the task)",
  },
  daka: { userTypes: C, content: {}, description: 'check-in (original catalogue; fields not documented)' },
  card_open: { userTypes: C, content: {}, description: 'business card opened (original catalogue)' },
  card_spread: { userTypes: C, content: {}, description: 'business card spread (original catalogue)' },
  card_chat_start: { userTypes: C, content: {}, description: 'business card chat started (original catalogue)' },
  card_chat_send_msg: { userTypes: C, content: {}, description: 'business card chat message (original catalogue)' },
  card_chat_customer: { userTypes: C, content: {}, description: 'business card chat customer (original catalogue)' },
} as const satisfies Record<string, ActionSpec>;

export type KnownAction = keyof typeof ACTIONS;

/** Actions outside the vocabulary must still look like one; they are stored and count in `total` only. */
export const ACTION_NAME_RE = /^[a-z0-9_]{1,64}$/;

export function actionSpec(action: string): ActionSpec | undefined {
  return Object.hasOwn(ACTIONS, action) ? (ACTIONS as Record<string, ActionSpec>)[action] : undefined;
}

/**
 * Whether a record of `action` counts in the overview's `total`: every action but the parts of another
 * one's activity and the team's bookkeeping. An action outside the vocabulary counts.
 */
export function countsAsActivity(action: string): boolean {
  const spec = actionSpec(action);
  return spec?.partOf === undefined && spec?.bookkeeping !== true;
}

/** The link whose tags a record counts (actions listed by tag, `content.linkId`), if any. */
export function taggedLinkOf(action: string, content: Record<string, unknown> | null): string | null {
  return actionSpec(action)?.list === 'tag' && typeof content?.linkId === 'string' ? content.linkId : null;
}

/**
 * What one behaviour record adds to the overview's counters, as [kind, key] pairs: its action, and
 * the site, app page or link tags its action is listed by. `tags` are those of taggedLinkOf's link.
 */
export function overviewKeys(
  action: string,
  content: Record<string, unknown> | null,
  tags: readonly string[] | undefined,
): [string, string][] {
  const keys: [string, string][] = [['action', action]];
  const spec = actionSpec(action);
  if (spec?.list === 'site') {
    const title = content?.title || content?.site;
    if (typeof title === 'string' && title !== '') keys.push(['site', title.slice(0, 255)]);
  } else if (spec?.list === 'app_page') {
    const title = content?.title;
    if (typeof title === 'string' && title !== '') keys.push(['app_page', title.slice(0, 255)]);
  } else if (spec?.list === 'tag') {
    for (const tag of tags ?? []) keys.push(['tag', tag]);
  }
  return keys;
}

function typeMatches(type: FieldType, value: unknown): boolean {
  switch (type) {
    case 's':
      return typeof value === 'string';
    case 'i':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'n':
      return typeof value === 'number' && Number.isFinite(value);
    case 'b':
      return typeof value === 'boolean';
    case 'o':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case '*':
      return true;
  }
}

const TYPE_NAMES: Record<FieldType, string> = {
  s: 'a string',
  i: 'an integer',
  n: 'a number',
  b: 'a boolean',
  o: 'an object',
  '*': 'any value',
};

/**
 * Checks a parsed content object against a known action's shape; returns the first problem or
 * null. Null values of optional fields are accepted (producers often send them).
 */
export function checkContent(spec: ActionSpec, content: Record<string, unknown>): string | null {
  for (const [field, fieldSpec] of Object.entries(spec.content)) {
    const required = fieldSpec.endsWith('!');
    const type = fieldSpec[0] as FieldType;
    const value = content[field];
    if (value === undefined || value === null) {
      if (required) return `content.${field} is required`;
      continue;
    }
    if (!typeMatches(type, value)) return `content.${field} must be ${TYPE_NAMES[type]}`;
  }
  return null;
}
