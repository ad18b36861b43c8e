/*
 * Buying groups as one account (docs/scoring.md, "Hot leads"): customers of one company, by the
 * customer's company field or, without one, the domain of its e-mail address, so long as that domain
 * is no free-mail provider's. Pure.
 */

/** Domains of free-mail providers: an address there says nothing of the company. */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  '126.com',
  '139.com',
  '163.com',
  '189.cn',
  'aliyun.com',
  'aol.com',
  'foxmail.com',
  'gmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'googlemail.com',
  'hotmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'icloud.com',
  'live.com',
  'mac.com',
  'mail.com',
  'mail.ru',
  'me.com',
  'msn.com',
  'naver.com',
  'outlook.com',
  'proton.me',
  'protonmail.com',
  'qq.com',
  'sina.cn',
  'sina.com',
  'sohu.com',
  't-online.de',
  'tom.com',
  'vip.163.com',
  'vip.qq.com',
  'web.de',
  'yahoo.co.jp',
  'yahoo.com',
  'yandex.com',
  'yandex.ru',
  'yeah.net',
  'ymail.com',
  'zoho.com',
]);

export type AccountKind = 'company' | 'domain' | 'customer';

/** The account a customer belongs to: its company, else its e-mail's domain (not a free-mail one), else itself alone. */
export function accountOf(c: { id: string; company: string | null; email_lower: string | null }): {
  key: string;
  kind: AccountKind;
  name: string;
} {
  const company = (c.company ?? '').trim().replace(/\s+/g, ' ');
  if (company !== '') return { key: `company:${company.toLowerCase()}`, kind: 'company', name: company };
  const at = (c.email_lower ?? '').lastIndexOf('@');
  const domain = at < 0 ? '' : (c.email_lower ?? '').slice(at + 1).trim();
  if (domain !== '' && domain.includes('.') && !FREE_MAIL_DOMAINS.has(domain))
    return { key: `domain:${domain}`, kind: 'domain', name: domain };
  return { key: `customer:${c.id}`, kind: 'customer', name: '' };
}

/** Customers (in hot-lead order) grouped by account, accounts in the order of their first member. */
export function groupByAccount<T extends { id: string; company: string | null; email_lower: string | null }>(
  customers: T[],
): { key: string; kind: AccountKind; name: string; members: T[] }[] {
  const accounts = new Map<string, { key: string; kind: AccountKind; name: string; members: T[] }>();
  for (const c of customers) {
    const a = accountOf(c);
    const known = accounts.get(a.key);
    if (known === undefined) accounts.set(a.key, { ...a, members: [c] });
    else known.members.push(c);
  }
  return [...accounts.values()];
}
