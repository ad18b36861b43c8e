import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Flex, Popconfirm, Progress, Result, Skeleton, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { Link, useParams } from 'react-router';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { type Campaign, campaignQueries, useCampaignAction } from '../api.ts';

/** The recipient states, in the order the server's progress lists them. */
const STATES = ['queued', 'sending', 'sent', 'failed', 'unknown', 'suppressed', 'cancelled'] as const;
// Tag colours with text that keeps its contrast (axe): blue while sending, plain otherwise.
const STATUS_COLOR: Record<string, string | undefined> = { active: 'blue', paused: 'red' };

/** A campaign's progress: its status, recipients per state, and pause, resume or cancel while it may. */
export function CampaignPage() {
  const { appId = '', postId = '' } = useParams();
  const { t } = useTranslation();
  const campaign = useQuery(campaignQueries.campaign(appId, postId));
  const action = useCampaignAction(appId, postId);
  const back = (
    <Link to={`/p/${appId}/posts`}>
      <ArrowLeftOutlined /> {t('campaigns.backToList')}
    </Link>
  );

  if (campaign.isError) {
    return (
      <>
        {back}
        <PageHeader title={t('campaigns.progress.title')} />
        <Result status="warning" title={errorText(campaign.error)} subTitle={t('campaigns.progress.notACampaign')} />
      </>
    );
  }
  const c: Campaign | undefined = campaign.data;
  const percent = c && c.recipientCount > 0 ? Math.round((c.done / c.recipientCount) * 100) : 0;

  return (
    <>
      {back}
      <PageHeader title={c ? c.title : t('campaigns.progress.title')} />
      {!c ? (
        <Skeleton active />
      ) : (
        <Flex vertical gap={16}>
          <Card size="small">
            <Flex vertical gap={12}>
              <Flex wrap gap={8} align="center">
                <Typography.Text>{t('campaigns.progress.status')}</Typography.Text>
                <Tag color={STATUS_COLOR[c.status]} data-status={c.status}>
                  {t(`campaigns.status.${c.status as 'active' | 'paused' | 'cancelled' | 'done'}`)}
                </Tag>
              </Flex>
              <div role="status" aria-live="polite">
                <Typography.Text>{t('campaigns.progress.done', { done: c.done, count: c.recipientCount })}</Typography.Text>
              </div>
              <Progress percent={percent} status={c.status === 'active' ? 'active' : 'normal'} aria-label={t('campaigns.progress.bar')} />
              <Flex wrap gap={8}>
                {c.status === 'active' ? (
                  <Button onClick={() => action.mutate('pause')} loading={action.isPending && action.variables === 'pause'}>
                    {t('campaigns.progress.pause')}
                  </Button>
                ) : null}
                {c.status === 'paused' ? (
                  <Button onClick={() => action.mutate('resume')} loading={action.isPending && action.variables === 'resume'}>
                    {t('campaigns.progress.resume')}
                  </Button>
                ) : null}
                {c.status === 'active' || c.status === 'paused' ? (
                  <Popconfirm
                    title={t('campaigns.progress.cancelConfirm')}
                    okText={t('campaigns.progress.cancel')}
                    cancelText={t('common.actions.cancel')}
                    onConfirm={() => action.mutate('cancel')}
                  >
                    <Button danger loading={action.isPending && action.variables === 'cancel'}>
                      {t('campaigns.progress.cancel')}
                    </Button>
                  </Popconfirm>
                ) : null}
              </Flex>
              {action.isError ? (
                <Alert type="error" showIcon message={errorText(action.error)} description={errorDetail(action.error)} />
              ) : null}
            </Flex>
          </Card>
          <Descriptions
            bordered
            size="small"
            column={{ xs: 1, md: 2 }}
            items={[
              { key: 'sendAt', label: t('campaigns.progress.sendAt'), children: <DateTime value={c.sendAt} /> },
              { key: 'finishedAt', label: t('campaigns.progress.finishedAt'), children: <DateTime value={c.finishedAt} /> },
              { key: 'recipients', label: t('campaigns.progress.recipients'), children: c.recipientCount },
              ...STATES.map((s) => ({
                key: s,
                label: t(`campaigns.states.${s}`),
                children: <span data-state={s}>{c.states[s]}</span>,
              })),
            ]}
          />
        </Flex>
      )}
    </>
  );
}
