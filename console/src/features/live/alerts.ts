/**
 * Which behaviour records pop up a notification: a customer doing something a salesperson wants to
 * hear of at once (opening a link or a mail's link, filling a form, visiting the site, downloading,
 * playing, asking for contact). The team's own doings (calls, sends, notes, a campaign's mails, a
 * merge) and the steps inside a reading (page turns, leaves, page views) join the feed behind the bell
 * only: a campaign of thousands of mails, or a visitor reading forty pages, is not a flood of pop-ups.
 */
const ALERTING = new Set([
  'link_view_log',
  'link_view_clue',
  'link_spread',
  'access_site',
  'submit_form',
  'download_file',
  'play_media',
  'contact_service',
  'mail_click',
  'app_launch',
  'app_submit_form',
  'app_download_file',
  'app_play_media',
  'app_contact_service',
  'card_open',
  'card_chat_customer',
  'weixin_follow',
]);

export function alerts(action: string | undefined): boolean {
  return action !== undefined && ALERTING.has(action);
}

/**
 * Whether a feed entry raises the bell's count: what a salesperson should look at, the same doings
 * that pop up (and an anonymous reader opening a link). The team's own changes (an import of a
 * thousand customers, an edit, a transfer) and the steps inside a reading join the feed without it.
 */
export function countsForBell(entry: { textKey: string; action: string | undefined }): boolean {
  if (entry.textKey === 'anonymousOpen') return true;
  return entry.textKey === 'activity' && alerts(entry.action);
}
