import { Flex, Space, Spin, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { TopReason } from '../../../shared/score/TopReason.tsx';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { Muted } from '../../../shared/ui/Muted.tsx';
import { type RowsProps, useRowParts } from './rowParts.tsx';

const ONE_LINE = { display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/**
 * The page of customers on a narrow screen: a card each (a bordered box drawn with the theme's tokens,
 * as antd's small card draws it, without the card's code and its tabs); a card opens the customer,
 * its checkbox picks it. The phone number is never cut: it has a line of its own; a score shows with
 * its largest reason.
 */
export function CustomerCards({ list: c, selection: s }: RowsProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { token } = theme.useToken();
  const { nameOf, href, isNew, activity, empty, pick } = useRowParts(c, s);
  const { sort = 'updated' } = c.params;
  const card = {
    border: `${token.lineWidth}px ${token.lineType} ${token.colorBorderSecondary}`,
    borderRadius: token.borderRadiusLG,
    background: token.colorBgContainer,
    padding: token.paddingSM,
  };
  return (
    <Spin spinning={c.replacing}>
      {c.rows.length === 0 ? (
        // While the first page loads the spinner stands in a box of its own, as antd's list draws it.
        c.replacing ? (
          <div style={{ minHeight: 53 }} />
        ) : (
          empty
        )
      ) : (
        <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {c.rows.map((r) => (
            <li key={r.id} style={{ marginBottom: 8 }}>
              <div style={card} onClick={() => void navigate(href(r))}>
                <Flex justify="space-between" align="start" gap={8}>
                  {pick(r)}
                  <Flex vertical gap={2} style={{ minWidth: 0, flex: 1 }}>
                    <Space size={4} wrap>
                      <Link to={href(r)} style={{ fontWeight: 600 }}>
                        {nameOf(r)}
                      </Link>
                      {isNew(r)}
                    </Space>
                    {/* The company is cut by CSS (antd's measured ellipsis lays the page out again for each card); the phone or email wraps, never cut. */}
                    {r.company ? <Muted style={ONE_LINE}>{r.company}</Muted> : null}
                    {r.phone || r.email || !r.company ? (
                      <Muted style={{ overflowWrap: 'anywhere' }}>{r.phone || r.email || t('common.none')}</Muted>
                    ) : null}
                    {activity(r)}
                    <TopReason score={r.score} reasons={r.scoreReasons} label={(score) => t('customers.score.value', { score })} />
                  </Flex>
                  <Muted style={{ whiteSpace: 'nowrap', fontSize: 12 }}>
                    {/* The time the list is sorted by (the last change when sorted by name). */}
                    {sort === 'last_activity' ? (
                      r.lastActivityAt ? (
                        <DateTime value={r.lastActivityAt} relative />
                      ) : (
                        t('common.none')
                      )
                    ) : (
                      <DateTime value={sort === 'created' ? r.createdAt : r.updatedAt} relative />
                    )}
                  </Muted>
                </Flex>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Spin>
  );
}
