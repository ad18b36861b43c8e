import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Flex, Input, Modal, QRCode, Space, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { LinkItem } from '../api.ts';

/** Copies a share address to the clipboard and says so. */
export function useCopyLink(): (url: string) => void {
  const { t } = useTranslation();
  const { message } = App.useApp();
  return (url: string) => {
    void navigator.clipboard
      .writeText(url)
      .then(() => message.success(t('links.copied')))
      .catch(() => message.info(url));
  };
}

/** A link's share address (to copy) and its QR code (to scan), as shown after creating it and in its details. */
export function ShareLink({ url, name }: { url: string; name: string }) {
  const { t } = useTranslation();
  const copy = useCopyLink();
  const qr = useRef<HTMLDivElement>(null);
  const label = t('links.qrTitle', { name });
  // antd draws the code on a canvas with role="img" and no name: name it.
  useEffect(() => {
    qr.current?.querySelector('canvas')?.setAttribute('aria-label', label);
  });
  return (
    <Flex vertical gap={12} align="stretch">
      <label>
        <Typography.Text strong>{t('links.share.url')}</Typography.Text>
        <Space.Compact style={{ width: '100%', marginTop: 4 }}>
          <Input readOnly value={url} onFocus={(e) => e.target.select()} data-share-url />
          <Button type="primary" icon={<CopyOutlined />} onClick={() => copy(url)}>
            {t('links.copy')}
          </Button>
        </Space.Compact>
      </label>
      <Flex vertical align="center" gap={4}>
        <div ref={qr}>
          <QRCode value={url} size={180} bordered={false} />
        </div>
        <Typography.Text type="secondary">{t('links.qrHelp')}</Typography.Text>
      </Flex>
    </Flex>
  );
}

/** A dialog of a link's share address and QR code (after it is made, or from the list's QR button); closed without a link. */
export function ShareModal({ link, title, onClose }: { link: LinkItem | undefined; title: string; onClose: () => void }) {
  return (
    <Modal open={link !== undefined} title={title} footer={null} onCancel={onClose} destroyOnHidden>
      {link?.url ? <ShareLink url={link.url} name={link.name ?? ''} /> : null}
    </Modal>
  );
}
