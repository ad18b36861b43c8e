import type { AlertLocale } from '../../events/alert-events.ts';

/** Alert e-mails' text (docs/alerts.md "E-mail"): an instant mail of one alert, a digest of a day's. Pure. */

export interface MailText {
  subject: string;
  text: string;
}

const FOOTER: Record<AlertLocale, (settings: string) => string> = {
  'en-US': (settings) => `\n\n--\nRapport alerts. Change what you receive: ${settings}\n`,
  'zh-CN': (settings) => `\n\n--\nRapport 提醒。更改接收设置：${settings}\n`,
};

/** The console's page of a member's notification settings. */
export const settingsUrl = (publicBaseUrl: string): string => `${publicBaseUrl}/console/notifications/settings`;

/** One alert, as it happened: its headline as the subject, its sentence, where the customer opens, the project. */
export function instantMail(
  a: { title: string; text: string; url: string; project: string | null },
  locale: AlertLocale,
  publicBaseUrl: string,
): MailText {
  const project = a.project === null ? '' : locale === 'zh-CN' ? `\n项目：${a.project}` : `\nProject: ${a.project}`;
  const open = locale === 'zh-CN' ? '查看客户' : 'Open the customer';
  return {
    subject: a.title.replace(/[\r\n]+/g, ' '),
    text: `${a.text}\n\n${open}: ${a.url}${project}${FOOTER[locale](settingsUrl(publicBaseUrl))}`,
  };
}

/** A digest line: when (the member's local time), the headline. */
export interface DigestLine {
  project: string | null;
  at: string;
  title: string;
  url: string;
}

/** A digest: its lines grouped by project, in order, and the inbox's address. */
export function digestMail(lines: DigestLine[], more: number, locale: AlertLocale, publicBaseUrl: string): MailText {
  const groups = new Map<string, DigestLine[]>();
  for (const l of lines) {
    const key = l.project ?? '';
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  const total = lines.length + more;
  const body: string[] = [];
  for (const [project, list] of groups) {
    body.push(project === '' ? '' : `${project}\n${'-'.repeat(Math.min(40, Array.from(project).length))}`);
    for (const l of list) body.push(`${l.at}  ${l.title}\n       ${l.url}`);
    body.push('');
  }
  if (more > 0) body.push(locale === 'zh-CN' ? `另有 ${more} 条提醒，请在收件箱中查看。` : `${more} more in your inbox.`);
  const inbox = `${publicBaseUrl}/console/notifications`;
  return locale === 'zh-CN'
    ? {
        subject: `Rapport 每日摘要：${total} 条提醒`,
        text: `自上次摘要以来的提醒：\n\n${body.join('\n')}\n收件箱：${inbox}${FOOTER[locale](settingsUrl(publicBaseUrl))}`,
      }
    : {
        subject: `Rapport daily digest: ${total} alert${total === 1 ? '' : 's'}`,
        text: `Your alerts since the last digest:\n\n${body.join('\n')}\nInbox: ${inbox}${FOOTER[locale](settingsUrl(publicBaseUrl))}`,
      };
}
