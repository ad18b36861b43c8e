import { useQuery } from '@tanstack/react-query';
import { Card, Col, Empty, Flex, List, Row, Skeleton, Statistic, Table, Tag, Typography } from 'antd';
import type { HTMLAttributes, ReactNode } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { useWide } from '../../../shared/ui/useWide.ts';
import { type Funnel, sequenceQueries } from '../api.ts';
import { rate } from '../model.ts';

type FunnelStep = Funnel['steps'][number];

/** A count and, beside it, its share of those it is counted against. */
const Count = ({ n, of }: { n: number; of: number }) => (
  <>
    {n}
    {of > 0 && n > 0 ? <span style={{ color: '#666' }}> ({rate(n, of)})</span> : null}
  </>
);

const FIGURES = ['reached', 'sent', 'opened', 'clicked', 'replied', 'tasks'] as const;

/** A step's figure: sent, opened, clicked with their share of those sent (or reached); tasks for the steps a member does. */
function figure(s: FunnelStep, k: (typeof FIGURES)[number]): ReactNode {
  const of = k === 'opened' || k === 'clicked' ? s.sent : s.reached;
  return (
    <span data-figure={k} style={{ whiteSpace: 'nowrap' }}>
      {k === 'reached' || k === 'tasks' ? s[k] : <Count n={s[k]} of={of} />}
    </span>
  );
}

/**
 * A sequence's funnel: how many were enrolled and where they are now, each step's reach (sent,
 * opened, clicked, replied; tasks for the steps a member does), and why people left.
 */
export function FunnelCard({ appId, sequenceId }: { appId: string; sequenceId: string }) {
  const { t } = useLazyTexts('sequences');
  const funnel = useQuery(sequenceQueries.funnel(appId, sequenceId));
  // A phone lists the steps with their figures; a wide screen shows them as a table.
  const wide = useWide();
  if (!funnel.data) return <Skeleton active paragraph={{ rows: 6 }} />;
  const f = funnel.data;
  const exits = Object.entries(f.exited.byReason).filter(([, n]) => n > 0);
  const exited = exits.reduce((sum, [, n]) => sum + n, 0);
  const states = [
    ['enrolled', f.enrolled],
    ['active', f.active],
    ['paused', f.paused],
    ['finished', f.finished],
    ['exited', exited],
  ] as const;
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('sequences.funnel.title')}</h2>}>
      <Row gutter={[8, 8]} style={{ marginBottom: 16 }}>
        {states.map(([k, n]) => (
          <Col key={k} xs={12} sm={8} md={4}>
            <Statistic title={t(`sequences.funnel.${k}`)} value={n} />
          </Col>
        ))}
      </Row>
      {f.enrolled === 0 ? (
        <Empty description={t('sequences.funnel.empty')} />
      ) : (
        <>
          {wide ? (
            <Table<FunnelStep>
              size="small"
              rowKey="step"
              onRow={(st) => ({ 'data-funnel-step': st.step }) as HTMLAttributes<HTMLElement>}
              pagination={false}
              scroll={{ x: 640 }}
              dataSource={f.steps}
              columns={[
                {
                  key: 'step',
                  title: t('sequences.funnel.step'),
                  render: (_, s) => (
                    <>
                      {t('sequences.step.number', { n: s.step + 1 })} · {t(`sequences.types.${s.type}`, { defaultValue: s.type })}
                      <div style={{ color: '#666', fontSize: 12 }}>{s.title}</div>
                    </>
                  ),
                },
                ...FIGURES.map((k) => ({
                  key: k,
                  title: t(`sequences.funnel.${k}`),
                  render: (_: unknown, st: FunnelStep) => figure(st, k),
                })),
              ]}
            />
          ) : (
            <List<FunnelStep>
              size="small"
              dataSource={f.steps}
              renderItem={(s) => (
                <List.Item style={{ paddingInline: 0 }} data-funnel-step={s.step}>
                  <Flex vertical gap={4} style={{ width: '100%' }}>
                    <span>
                      {t('sequences.step.number', { n: s.step + 1 })} · {t(`sequences.types.${s.type}`, { defaultValue: s.type })}
                    </span>
                    <span style={{ color: '#666', fontSize: 12 }}>{s.title}</span>
                    <Flex gap="4px 12px" wrap style={{ fontSize: 13 }}>
                      {FIGURES.map((k) => (
                        <span key={k}>
                          {t(`sequences.funnel.${k}`)}: {figure(s, k)}
                        </span>
                      ))}
                    </Flex>
                  </Flex>
                </List.Item>
              )}
            />
          )}
          <Typography.Paragraph type="secondary" style={{ fontSize: 13, margin: '8px 0 0' }}>
            {t('sequences.funnel.hint')}
          </Typography.Paragraph>
          <h3 style={{ fontSize: 14, marginTop: 16 }}>{t('sequences.funnel.exits')}</h3>
          {exits.length === 0 ? (
            <span style={{ color: '#666' }}>{t('sequences.funnel.noExits')}</span>
          ) : (
            exits.map(([reason, n]) => (
              <Tag key={reason} style={{ marginBottom: 4 }}>
                {t(`sequences.exitReasons.${reason}`, { defaultValue: reason })}: {n}
              </Tag>
            ))
          )}
        </>
      )}
    </Card>
  );
}
