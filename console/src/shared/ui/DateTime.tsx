import { Suspense, lazy, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { parseServerTime, serverTimeZone, toLocal } from '../time/serverTime.ts';

// The tooltip's code (antd's Tooltip and its positioning) loads when a time is first pointed at.
const Tooltip = lazy(() => import('./TooltipChunk.ts').then((m) => ({ default: m.Tooltip })));

/**
 * A timestamp of the API (`yyyy-MM-dd HH:mm:ss` in the server's TIME_ZONE), shown in the user's own
 * zone, relative ("5 minutes ago") or absolute; the tooltip shows it as the server wrote it, with its zone.
 */
export function DateTime({ value, relative = false }: { value: string | null | undefined; relative?: boolean }) {
  const { t, i18n } = useTranslation();
  const [pointed, setPointed] = useState(false);
  const over = useRef(false);
  const parsed = parseServerTime(value);
  if (!parsed) return <span>{t('common.none')}</span>;
  const local = toLocal(parsed).locale(i18n.language === 'zh-CN' ? 'zh-cn' : 'en');
  const shown = relative ? local.fromNow() : local.format('YYYY-MM-DD HH:mm');
  const time = (
    <time
      dateTime={parsed.toISOString()}
      data-time
      onMouseEnter={() => {
        over.current = true;
        setPointed(true);
      }}
      onMouseLeave={() => (over.current = false)}
    >
      {shown}
    </time>
  );
  if (!pointed) return time;
  return (
    <Suspense fallback={time}>
      {/* Open at once if the pointer is still on the time when the tooltip's code has come. */}
      <Tooltip title={t('common.serverTime', { time: value, zone: serverTimeZone() })} defaultOpen={over.current}>
        {time}
      </Tooltip>
    </Suspense>
  );
}
