import { ArrowLeftOutlined } from '@ant-design/icons';
import { Alert, Col, Row } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { authQueries } from '../../auth/index.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { ComposerForm } from '../components/ComposerForm.tsx';
import { ComposerPreview } from '../components/ComposerPreview.tsx';
import { ConfirmSend } from '../components/ConfirmSend.tsx';
import { useComposer } from '../useComposer.ts';

/**
 * A new e-mail campaign (or, on a server without SMTP_URL, why there can be none): subject, HTML body with merge fields, recipients (customers found by search,
 * or a group), send time; the server's preview of the mail beside it (sandboxed, no script), a test
 * mail to the user's own address, then Send after a confirmation with the recipient count.
 */
export function ComposerPage() {
  const info = useQuery(authQueries.serverInfo());
  // Without SMTP_URL nothing can be sent: say so before anyone writes a campaign.
  if (info.data?.mail === false) return <NoMail />;
  return <Composer />;
}

function NoMail() {
  const { t } = useTranslation();
  const { appId = '' } = useParams();
  return (
    <>
      <Link to={`/p/${appId}/posts`}>
        <ArrowLeftOutlined /> {t('campaigns.backToList')}
      </Link>
      <PageHeader title={t('campaigns.compose.title')} />
      <Alert
        type="warning"
        showIcon
        role="alert"
        message={t('campaigns.compose.noMailTitle')}
        description={t('campaigns.compose.noMailText')}
      />
    </>
  );
}

function Composer() {
  const { t } = useTranslation();
  const composer = useComposer();
  const { formError } = composer;
  return (
    <>
      <Link to={`/p/${composer.appId}/posts`}>
        <ArrowLeftOutlined /> {t('campaigns.backToList')}
      </Link>
      <PageHeader title={t('campaigns.compose.title')} />
      {formError ? <Alert type="error" showIcon message={formError[0]} description={formError[1]} style={{ marginBottom: 16 }} /> : null}
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={12}>
          <ComposerForm composer={composer} />
        </Col>
        <Col xs={24} lg={12}>
          <ComposerPreview composer={composer} />
        </Col>
      </Row>
      <ConfirmSend composer={composer} />
    </>
  );
}
