import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { pageWindow } from './pageWindow.ts';

/**
 * A list's pages, as antd's Pagination draws them (previous, the pages around the current one with
 * jumps over the rest, next, and the range shown), without its code: antd's brings its select (the
 * page-size changer) with it, some 25 KB the customers page's first load does without. `compact`: the
 * small size and fewer pages, for a phone. Each page is an item named by its number.
 */
export function PageNumbers(props: {
  current: number;
  pageSize: number;
  total: number;
  compact?: boolean;
  showTotal?: (total: number, range: [number, number]) => ReactNode;
  onChange: (page: number) => void;
}) {
  const { t } = useTranslation();
  const { current, pageSize, total, compact = false, onChange } = props;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const jump = compact ? 3 : 5;
  const size = compact ? 'small' : 'middle';
  const box = { minWidth: compact ? 24 : 32, paddingInline: 6 };
  const item = (key: string, title: string, child: ReactNode) => (
    <li key={key} title={title} style={{ display: 'inline-block' }}>
      {child}
    </li>
  );
  return (
    <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: compact ? 2 : 8 }}>
      {props.showTotal && (
        <li style={{ marginInlineEnd: 8 }}>
          {props.showTotal(total, [(current - 1) * pageSize + 1, Math.min(total, current * pageSize)])}
        </li>
      )}
      {item(
        'previous',
        t('common.actions.previous'),
        <Button
          type="text"
          size={size}
          style={box}
          icon={<LeftOutlined />}
          aria-label={t('common.actions.previous')}
          disabled={current <= 1}
          onClick={() => onChange(current - 1)}
        />,
      )}
      {pageWindow(current, pages, compact ? 1 : 2).map((p) =>
        typeof p === 'number'
          ? item(
              String(p),
              String(p),
              <Button
                size={size}
                style={{ ...box, fontWeight: p === current ? 600 : undefined }}
                {...(p === current ? { color: 'primary', variant: 'outlined', 'aria-current': 'page' as const } : { type: 'text' })}
                onClick={() => p !== current && onChange(p)}
              >
                {p}
              </Button>,
            )
          : item(
              p,
              t(p === 'back' ? 'common.page.back' : 'common.page.forward', { n: jump }),
              <Button
                type="text"
                size={size}
                style={box}
                aria-label={t(p === 'back' ? 'common.page.back' : 'common.page.forward', { n: jump })}
                onClick={() => onChange(p === 'back' ? Math.max(1, current - jump) : Math.min(pages, current + jump))}
              >
                •••
              </Button>,
            ),
      )}
      {item(
        'next',
        t('common.actions.next'),
        <Button
          type="text"
          size={size}
          style={box}
          icon={<RightOutlined />}
          aria-label={t('common.actions.next')}
          disabled={current >= pages}
          onClick={() => onChange(current + 1)}
        />,
      )}
    </ul>
  );
}
