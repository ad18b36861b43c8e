import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { parseServerTime, serverTimeZone, toLocal } from '../time/serverTime.ts';

/**
 * A timestamp of the API (`yyyy-MM-dd HH:mm:ss` in the server's TIME_ZONE), shown in the user's own
 * zone, relative ("5 minutes ago") or absolute; the tooltip shows it as the server wrote it, with its zone.
 */
export function DateTime({ value, relative = false }: { value: string | null | undefined; relative?: boolean }) {
  const { t, i18n } = useTranslation();
  const parsed = parseServerTime(value);
  if (!parsed) return <span>{t('common.none')}</span>;
  const local = toLocal(parsed).locale(i18n.language === 'zh-CN' ? 'zh-cn' : 'en');
  const shown = relative ? local.fromNow() : local.format('YYYY-MM-DD HH:mm');
  return (
    <Tooltip title={t('common.serverTime', { time: value, zone: serverTimeZone() })}>
      <time dateTime={parsed.toISOString()} data-time>
        {shown}
      </time>
    </Tooltip>
  );
}
