import { Card, Descriptions, Typography } from 'antd';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { LinkItem } from '../api.ts';
import { linkKind } from '../model.ts';

/** A link's settings: who may open it (passcode, e-mail gate, its code and lists, agreement) and how. Its gates' texts load with it (`linkGates`). */
export function LinkSettings({ appId, link }: { appId: string; link: LinkItem }) {
  const { t } = useLazyTexts('linkGates');
  const yesNo = (v: number | boolean) => t(v ? 'links.detail.yes' : 'links.detail.no');
  const kind = linkKind(link.type);
  const list = (entries: readonly string[], empty: string) => (entries.length > 0 ? entries.join(', ') : empty);
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('links.detail.settings')}</h2>}>
      <Descriptions
        column={1}
        size="small"
        items={[
          ...(kind === 'file' || kind === 'room'
            ? []
            : [{ key: 'website', label: t('links.detail.website'), children: link.website ?? t('common.none') }]),
          ...(link.customer
            ? [
                {
                  key: 'customer',
                  label: t('links.detail.customer'),
                  children: <Link to={`/p/${appId}/customers/${link.customer.id}`}>{link.customer.name || link.customer.id}</Link>,
                },
              ]
            : []),
          { key: 'passcode', label: t('links.detail.passcode'), children: yesNo(link.hasPasscode) },
          {
            key: 'expires',
            label: t('links.detail.expires'),
            children: link.expiresAt ? <DateTime value={link.expiresAt} /> : t('links.detail.never'),
          },
          ...(kind === 'file'
            ? [
                { key: 'download', label: t('links.detail.download'), children: yesNo(link.allowDownload) },
                { key: 'watermark', label: t('links.detail.watermark'), children: yesNo(link.watermark) },
              ]
            : kind === 'room'
              ? [{ key: 'download', label: t('links.detail.download'), children: yesNo(link.allowDownload) }]
              : []),
          { key: 'gate', label: t('links.detail.emailGate'), children: yesNo(link.emailGate) },
          ...(link.emailGate
            ? [
                { key: 'verify', label: t('linkGates.detail.emailVerify'), children: yesNo(link.emailVerify) },
                { key: 'allow', label: t('linkGates.detail.allowList'), children: list(link.allowList, t('linkGates.detail.anyone')) },
                { key: 'deny', label: t('linkGates.detail.denyList'), children: list(link.denyList, t('linkGates.detail.nobody')) },
              ]
            : []),
          {
            key: 'agreement',
            label: t('linkGates.detail.agreement'),
            children: link.agreement ? (
              <Typography.Paragraph
                style={{ margin: 0, whiteSpace: 'pre-wrap' }}
                ellipsis={{ rows: 3, expandable: 'collapsible' }}
                data-agreement-version={link.agreementVersion}
              >
                {`${t('linkGates.detail.agreementVersion', { version: link.agreementVersion })}: ${link.agreement}`}
              </Typography.Paragraph>
            ) : (
              t('common.none')
            ),
          },
        ]}
      />
    </Card>
  );
}
