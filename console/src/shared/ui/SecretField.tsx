import { CopyOutlined, EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { App, Button, Input, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

interface SecretFieldProps {
  /** The field's accessible name (the secret's title). */
  label: string;
  secret: string;
  /** Shown from the start, or after a rotation; otherwise hidden until Show. */
  revealed?: boolean;
  onRevealedChange?: (revealed: boolean) => void;
}

/**
 * A secret as every page shows one: dots until Show, a Hide to cover it again, and Copy (which works
 * hidden too). `data-secret` says which it is, for the browser tests.
 */
export function SecretField({ label, secret, revealed: controlled, onRevealedChange }: SecretFieldProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [own, setOwn] = useState(false);
  const revealed = controlled ?? own;
  const setRevealed = (r: boolean) => (onRevealedChange ? onRevealedChange(r) : setOwn(r));
  const copy = () =>
    void navigator.clipboard
      .writeText(secret)
      .then(() => message.success(t('common.secret.copied')))
      .catch(() => undefined);
  return (
    <Space.Compact style={{ width: '100%', maxWidth: 560 }}>
      <Input
        readOnly
        aria-label={label}
        value={revealed ? secret : '•'.repeat(24)}
        style={{ fontFamily: 'monospace' }}
        data-secret={revealed ? 'shown' : 'hidden'}
      />
      <Button icon={revealed ? <EyeInvisibleOutlined /> : <EyeOutlined />} onClick={() => setRevealed(!revealed)}>
        {revealed ? t('common.secret.hide') : t('common.secret.reveal')}
      </Button>
      <Button icon={<CopyOutlined />} onClick={copy} aria-label={t('common.secret.copy', { what: label })} />
    </Space.Compact>
  );
}
