import { Empty, Flex, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { SCORING_ANCHOR } from '../../scoring/index.ts';

/**
 * No hot lead yet: what fills the page (customers' engagement earning points), and where to start
 * (share a deck; the Master and Admins: the site's tracking and the scoring rules, on the settings page).
 */
export function HotEmpty({ appId, manages, filtered }: { appId: string; manages: boolean; filtered: boolean }) {
  const { t } = useLazyTexts('home');
  if (filtered) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.empty.owner')} />;
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <>
          <Typography.Paragraph strong style={{ marginBottom: 4 }}>
            {t('home.empty.title')}
          </Typography.Paragraph>
          <Typography.Paragraph type="secondary" style={{ maxWidth: 520, marginInline: 'auto' }}>
            {t('home.empty.how')}
          </Typography.Paragraph>
          {manages && (
            <Typography.Paragraph type="secondary" style={{ maxWidth: 520, marginInline: 'auto' }}>
              {t('home.empty.rules')}
            </Typography.Paragraph>
          )}
        </>
      }
    >
      <Flex wrap gap={16} justify="center">
        <Link to={`/p/${appId}/links`}>{t('home.empty.share')}</Link>
        {manages && <Link to={`/p/${appId}/site`}>{t('home.empty.site')}</Link>}
        {manages && <Link to={`/p/${appId}/settings#${SCORING_ANCHOR}`}>{t('home.empty.rulesLink')}</Link>}
      </Flex>
    </Empty>
  );
}
