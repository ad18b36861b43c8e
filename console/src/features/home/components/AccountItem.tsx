import { Flex } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { useScoreWords } from '../../../shared/score/useScoreWords.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { Muted } from '../../../shared/ui/Muted.tsx';
import type { HotAccount } from '../api.ts';

/** Members of an account shown; the API sends 20 at most. */
const MEMBERS_SHOWN = 5;

/**
 * A buying group as one account: its company (or e-mail domain), its members' scores summed, and its
 * members, most recent rise first, each a link to the customer with their score and largest reason.
 */
export function AccountItem({ appId, account }: { appId: string; account: HotAccount }) {
  const { t } = useLazyTexts('home');
  const words = useScoreWords();
  const shown = account.members.slice(0, MEMBERS_SHOWN);
  return (
    <Flex vertical gap={4} style={{ width: '100%', minWidth: 0 }} data-account={account.account}>
      <Flex justify="space-between" align="baseline" gap={8} wrap>
        <span style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
          <strong style={{ fontSize: 15 }}>{account.account}</strong>
          <Muted>
            {' · '}
            {t(`home.accountType.${account.accountType}`)} · {t('home.people', { count: account.memberCount })} ·{' '}
            <DateTime value={account.risenAt} relative />
          </Muted>
        </span>
        <strong style={{ color: '#1565c0', whiteSpace: 'nowrap' }} data-account-score>
          {t('customers.score.value', { score: words.score(account.score) })}
        </strong>
      </Flex>
      <ul style={{ margin: 0, paddingInlineStart: 18 }}>
        {shown.map((m) => {
          const top = m.scoreReasons[0];
          return (
            <li key={m.customerId} data-member={m.customerId}>
              <Link to={`/p/${appId}/customers/${m.customerId}`} style={{ fontWeight: 600 }}>
                {m.name || t('customers.unnamed')}
              </Link>
              <Muted>
                {' · '}
                {words.score(m.score)}
                {top ? ` · ${words.reason(top)}` : ''}
              </Muted>
            </li>
          );
        })}
      </ul>
      {account.memberCount > shown.length && (
        <Muted style={{ fontSize: 13 }}>{t('home.morePeople', { count: account.memberCount - shown.length })}</Muted>
      )}
    </Flex>
  );
}
