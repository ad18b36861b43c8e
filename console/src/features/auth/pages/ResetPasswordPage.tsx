import { Alert, Button, Flex, Form, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { useResetPassword, useSendResetCode } from '../api.ts';
import { AuthFrame } from '../components/AuthFrame.tsx';
import { codeOf, isCodeShaped, secondsToResend } from '../reset.ts';

/** What the sign-in page hands over (the name typed there) and is handed back after a reset. */
export interface AuthPageState {
  username?: string;
  passwordReset?: boolean;
}

interface NewPassword {
  code: string;
  password: string;
  confirm: string;
}

/**
 * A forgotten password: a code sent to the account's e-mail (or, for a mobile number, relayed by the
 * server's administrator), then the code and the new password twice; back to sign-in on success.
 */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const handedOver = (useLocation().state as AuthPageState | null)?.username ?? '';
  const sendCode = useSendResetCode();
  const resetPassword = useResetPassword();
  // The name the code was sent for (null: none yet), and the one last typed.
  const [username, setUsername] = useState<string | null>(null);
  const [typed, setTyped] = useState(handedOver);
  const [sentAt, setSentAt] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<unknown>(null);
  const [form] = Form.useForm<NewPassword>();
  const wait = secondsToResend(sentAt, now);

  // The countdown to another code, a tick a second while it runs.
  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setNow(Date.now()), 1000);
    return () => clearTimeout(timer);
  }, [wait, now]);

  const send = async (name: string) => {
    setError(null);
    try {
      await sendCode.mutateAsync(name);
      setUsername(name);
      setTyped(name);
      setSentAt(Date.now());
      setNow(Date.now());
    } catch (err) {
      setError(err);
    }
  };

  const reset = async (v: NewPassword) => {
    if (username === null) return;
    setError(null);
    try {
      await resetPassword.mutateAsync({ username, code: codeOf(v.code), password: v.password });
      const state: AuthPageState = { passwordReset: true, username };
      void navigate('/sign-in', { replace: true, state });
    } catch (err) {
      setError(err);
    }
  };

  const ask = (
    <Form
      layout="vertical"
      requiredMark={false}
      initialValues={{ username: typed }}
      onFinish={(v: { username: string }) => void send(v.username.trim())}
    >
      <Typography.Paragraph type="secondary">{t('auth.reset.intro')}</Typography.Paragraph>
      <Form.Item
        name="username"
        label={t('auth.reset.username')}
        rules={[{ required: true, whitespace: true, message: t('auth.reset.usernameRequired') }]}
      >
        <Input autoComplete="username" autoFocus />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={sendCode.isPending}>
        {t('auth.reset.sendCode')}
      </Button>
    </Form>
  );

  const verify = (
    <Form form={form} layout="vertical" requiredMark={false} onFinish={(v) => void reset(v)}>
      <Alert type="info" showIcon message={t('auth.reset.sent', { username: username ?? '' })} style={{ marginBottom: 16 }} />
      <Form.Item
        name="code"
        label={t('auth.reset.code')}
        rules={[
          {
            validator: (_, value?: string) =>
              isCodeShaped(value ?? '') ? Promise.resolve() : Promise.reject(new Error(t('auth.reset.codeRequired'))),
          },
        ]}
      >
        <Input autoComplete="one-time-code" inputMode="numeric" maxLength={16} autoFocus />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('auth.reset.password')}
        rules={[{ required: true, min: 8, max: 128, message: t('auth.reset.passwordLength') }]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="confirm"
        label={t('auth.reset.confirm')}
        dependencies={['password']}
        rules={[
          { required: true, message: t('auth.reset.confirmRequired') },
          ({ getFieldValue }) => ({
            validator: (_, value?: string) =>
              !value || value === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('auth.reset.mismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Flex vertical gap={8}>
        <Button type="primary" htmlType="submit" block loading={resetPassword.isPending}>
          {t('auth.reset.submit')}
        </Button>
        <Button block disabled={wait > 0} loading={sendCode.isPending} onClick={() => username !== null && void send(username)}>
          {wait > 0 ? t('auth.reset.resendIn', { seconds: wait }) : t('auth.reset.resend')}
        </Button>
        <Button
          type="link"
          block
          onClick={() => {
            setError(null);
            setUsername(null);
            form.resetFields();
          }}
        >
          {t('auth.reset.otherAccount')}
        </Button>
      </Flex>
    </Form>
  );

  return (
    <AuthFrame title={t('auth.reset.title')}>
      {error ? <Alert type="error" showIcon message={errorText(error)} description={errorDetail(error)} /> : null}
      {username === null ? ask : verify}
      <Link to="/sign-in" state={username !== null ? ({ username } satisfies AuthPageState) : undefined}>
        {t('auth.reset.back')}
      </Link>
    </AuthFrame>
  );
}
