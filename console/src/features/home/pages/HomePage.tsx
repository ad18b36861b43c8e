import { Col, Row, Skeleton, Typography } from 'antd';
import { Suspense } from 'react';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { useWide } from '../../../shared/ui/useWide.ts';
import { TodayTasks } from '../../tasks/index.ts';
import { HotLeads } from '../components/HotLeads.tsx';
import { useHome } from '../useHome.ts';

function Home() {
  const { t } = useLazyTexts('home');
  const wide = useWide();
  const home = useHome();
  return (
    <>
      <PageHeader title={t('home.title')} extra={<Link to={`/p/${home.appId}/customers`}>{t('home.allCustomers')}</Link>} />
      <Typography.Paragraph type="secondary">{t('home.intro')}</Typography.Paragraph>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={15}>
          <HotLeads home={home} wide={wide} />
        </Col>
        <Col xs={24} lg={9}>
          <TodayTasks appId={home.appId} title={t('home.tasks')} />
        </Col>
      </Row>
    </>
  );
}

/**
 * A project's home, "who to call now": the customers whose score rose most recently (or their
 * accounts) with why, and the caller's tasks for today. Its texts load with it.
 */
export function HomePage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Home />
    </Suspense>
  );
}
