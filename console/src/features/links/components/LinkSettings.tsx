import { EditOutlined } from '@ant-design/icons';
import { Button, Card, Descriptions, type DescriptionsProps, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import type { LinkItem } from '../api.ts';
import { linkKind } from '../model.ts';

type Items = NonNullable<DescriptionsProps['items']>;

/** What the link shares and to whom: the title its readers see, its address (a web link's), its customer. */
function targetItems(t: TFunction, appId: string, link: LinkItem): Items {
  const kind = linkKind(link.type);
  return [
    {
      key: 'title',
      label: t('links.form.publicTitle'),
      children: link.title ?? <Typography.Text type="secondary">{t(`linkGates.detail.titleDefault.${kind}`)}</Typography.Text>,
    },
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
  ];
}

/** Who may open it and how: passcode, expiry, download and watermark, the e-mail gate with its code and lists, the agreement. */
function accessItems(t: TFunction, link: LinkItem): Items {
  const yesNo = (v: number | boolean) => t(v ? 'links.detail.yes' : 'links.detail.no');
  const list = (entries: readonly string[], empty: string) => (entries.length > 0 ? entries.join(', ') : empty);
  const kind = linkKind(link.type);
  return [
    { key: 'passcode', label: t('links.detail.passcode'), children: yesNo(link.hasPasscode) },
    {
      key: 'expires',
      label: t('links.detail.expires'),
      children: link.expiresAt ? <DateTime value={link.expiresAt} /> : t('links.detail.never'),
    },
    // A room link's watermark marks its documents as a deck's (docs/rooms.md).
    ...(kind === 'file' || kind === 'room'
      ? [
          { key: 'download', label: t('links.detail.download'), children: yesNo(link.allowDownload) },
          { key: 'watermark', label: t('links.detail.watermark'), children: yesNo(link.watermark) },
        ]
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
  ];
}

/**
 * A link's settings: the title its readers see and whom it is for, who may open it (passcode, e-mail
 * gate, its code and lists, agreement) and how; **Edit** (an active link) opens the link form on them.
 * Its gates' texts load with it (`linkGates`).
 */
export function LinkSettings({ appId, link, onEdit }: { appId: string; link: LinkItem; onEdit?: (() => void) | undefined }) {
  const { t } = useLazyTexts('linkGates');
  return (
    <Card
      size="small"
      title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('links.detail.settings')}</h2>}
      extra={
        onEdit && link.status === 1 ? (
          <Button icon={<EditOutlined />} onClick={onEdit}>
            {t('linkGates.edit.action')}
          </Button>
        ) : null
      }
    >
      <Descriptions column={1} size="small" items={[...targetItems(t, appId, link), ...accessItems(t, link)]} />
    </Card>
  );
}
