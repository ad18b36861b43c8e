import { ArrowLeftOutlined, EditOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Col, Descriptions, Result, Row, Skeleton, Statistic } from 'antd';
import { Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { LazyChart } from '../../../shared/ui/LazyChart.tsx';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { meQuery } from '../../../shared/api/me.ts';
import {
  customerQueries,
  CustomerFormDrawer,
  useFieldLabel,
  useOptionLabel,
  customerValue,
  formFields,
  parseOptions,
} from '../../customers/index.ts';
import { CustomerEnrollments } from '../../sequences/index.ts';
import { CustomerWork } from '../../tasks/index.ts';
import { customerDetailQueries } from '../api.ts';
import { BehaviourTimeline } from '../components/BehaviourTimeline.tsx';
import { ScoreCard } from '../components/ScoreCard.tsx';

const COUNTERS = ['total', 'linkCount', 'callCount', 'accessSiteCount', 'clueCount', 'smsCount'] as const;

/** One customer: engagement score and its reasons, profile, activity counters and the timeline of what they did. */
export function CustomerPage() {
  const { appId = '', customerId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const label = useFieldLabel();
  const optionLabel = useOptionLabel();
  const me = useQuery(meQuery());
  const customer = useQuery({ ...customerQueries.detail(appId, customerId), meta: { silent: true } });
  const metadata = useQuery(customerQueries.metadata(appId));
  const groups = useQuery(customerQueries.groups(appId));
  const overview = useQuery(customerDetailQueries.overview(appId, customerId));
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState(false);
  const fields = useMemo(() => formFields(metadata.data ?? [], 'edit'), [metadata.data]);
  const options = useMemo(() => new Map((metadata.data ?? []).map((m) => [m.name, parseOptions(m.optionValues)])), [metadata.data]);

  if (customer.isError) {
    return (
      <Result
        status="404"
        title={t('customer.notFound')}
        extra={
          <Link to={`/p/${appId}/customers`}>
            <ArrowLeftOutlined /> {t('customer.back')}
          </Link>
        }
      />
    );
  }
  if (!customer.data) return <Skeleton active paragraph={{ rows: 8 }} />;
  const c = customer.data as unknown as Record<string, unknown> & { name: string | null };
  const shown = (name: string): string | undefined => {
    const field = fields.find((f) => f.name === name);
    const raw = field ? customerValue(c, field) : c[name];
    if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) return undefined;
    const labelOf = (value: string) => {
      const option = options.get(name)?.find((o) => o.value === value);
      return option ? optionLabel(name, value, option.label) : value;
    };
    if (Array.isArray(raw)) return raw.map((v) => labelOf(String(v))).join(', ');
    const value = String(raw);
    if (name === 'groupId') return groups.data?.find((g) => g.id === value)?.name ?? value;
    return labelOf(value);
  };
  const profile = fields.filter((f) => shown(f.name) !== undefined);
  const web = overview.data?.webAccessData ?? [];

  return (
    <>
      <Link to={`/p/${appId}/customers`}>
        <ArrowLeftOutlined /> {t('customer.back')}
      </Link>
      <PageHeader
        title={<>{c.name || t('customers.unnamed')}</>}
        extra={
          <Button
            icon={<EditOutlined />}
            onClick={() => {
              setEdited(true);
              setEditing(true);
            }}
            disabled={!me.data}
          >
            {t('common.actions.edit')}
          </Button>
        }
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={9}>
          {/* First: why the customer is worth a call now. */}
          <ScoreCard score={customer.data.score} reasons={customer.data.scoreReasons} />
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('customer.profile')}</h2>} size="small">
            <Descriptions
              column={1}
              size="small"
              items={profile.map((f) => ({ key: f.name, label: label(f.name, f.title), children: shown(f.name) }))}
            />
          </Card>
          {/* Its tasks, notes and "log a call" (features/tasks): what the team does about the customer. */}
          <div style={{ marginTop: 16 }}>
            <CustomerWork appId={appId} customerId={customerId} ownerId={customer.data.svcUserId} />
          </div>
          {/* The sequences it is in (features/sequences): each one's state and step, paused, resumed or ended here. */}
          <div style={{ marginTop: 16 }}>
            <CustomerEnrollments appId={appId} customerId={customerId} name={c.name || t('customers.unnamed')} />
          </div>
        </Col>
        <Col xs={24} lg={15}>
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('customer.overview')}</h2>} size="small" style={{ marginBottom: 16 }}>
            <Row gutter={[8, 8]}>
              {COUNTERS.map((k) => (
                <Col key={k} xs={12} sm={8}>
                  <Statistic title={t(`customer.counters.${k}`)} value={overview.data?.[k] ?? 0} loading={overview.isLoading} />
                </Col>
              ))}
            </Row>
            {web.length > 0 && (
              <div style={{ marginTop: 16 }}>
                <h3 style={{ fontSize: 14 }}>{t('customer.topPages')}</h3>
                <LazyChart label={t('customer.topPages')} data={{ categories: web.map((w) => w.site), values: web.map((w) => w.num) }} />
              </div>
            )}
          </Card>
          <Card title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('customer.timeline')}</h2>} size="small">
            <BehaviourTimeline appId={appId} customerId={customerId} />
          </Card>
        </Col>
      </Row>
      {/* The form loads when first opened (and stays, for the drawer's closing). */}
      {me.data && edited && (
        <Suspense fallback={null}>
          <CustomerFormDrawer
            appId={appId}
            actingUserId={me.data.id}
            customer={customer.data}
            open={editing}
            onClose={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              void message.success(t('customers.saved'));
            }}
          />
        </Suspense>
      )}
    </>
  );
}
