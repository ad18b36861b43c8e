import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Tabs, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useSignedIn } from '../../../app/useSession.ts';
import { useLanguage } from '../../../app/useLanguage.ts';
import { session } from '../../../shared/api/session.ts';
import { tellAlertLanguage } from '../../notifications/index.ts';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { authQueries } from '../api.ts';
import { AuthFrame } from '../components/AuthFrame.tsx';
import type { AuthPageState } from './ResetPasswordPage.tsx';

/** Only paths of the console itself are followed after signing in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** Sign-in, and sign-up when the server allows it (ALLOW_SIGNUP, or nobody uses it yet: then with the setup code). */
export function SignInPage() {
  const { t } = useTranslation();
  const [language] = useLanguage();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [params] = useSearchParams();
  const handedOver = (useLocation().state as AuthPageState | null) ?? {};
  const [signInForm] = Form.useForm<{ username: string; password: string }>();
  // The name typed so far goes to the forgotten-password page with its link.
  const typedName = (Form.useWatch('username', signInForm) ?? '').trim();
  const signedIn = useSignedIn();
  const info = useQuery(authQueries.serverInfo());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
  // A server without accounts: its first one needs the setup code the server logged at start.
  const setupRequired = info.data?.setupRequired === true;
  if (signedIn && !busy) return <Navigate to={next} replace />;

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      client.clear();
      void navigate(next, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const signIn = (
    <Form
      form={signInForm}
      layout="vertical"
      requiredMark={false}
      initialValues={{ username: handedOver.username ?? '' }}
      onFinish={(v) => void run(() => session.signIn(v.username.trim(), v.password))}
    >
      <Form.Item name="username" label={t('auth.signIn.username')} rules={[{ required: true, message: t('auth.signIn.usernameRequired') }]}>
        <Input autoComplete="username" />
      </Form.Item>
      <Form.Item name="password" label={t('auth.signIn.password')} rules={[{ required: true, message: t('auth.signIn.passwordRequired') }]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={busy}>
        {t('auth.signIn.submit')}
      </Button>
      <Typography.Paragraph style={{ margin: '12px 0 0', textAlign: 'center' }}>
        <Link to="/reset-password" state={typedName ? ({ username: typedName } satisfies AuthPageState) : undefined}>
          {t('auth.signIn.forgot')}
        </Link>
      </Typography.Paragraph>
    </Form>
  );

  const signUp = (
    <Form
      layout="vertical"
      requiredMark={false}
      onFinish={(v: { identifier: string; nickname?: string; password: string; setupCode?: string }) => {
        const id = v.identifier.trim();
        const fields = id.includes('@') ? { email: id } : { phoneNum: id };
        const extra = { ...(v.nickname ? { nickname: v.nickname.trim() } : {}), ...(v.setupCode ? { setupCode: v.setupCode.trim() } : {}) };
        void run(async () => {
          await session.signUp({ ...fields, password: v.password, ...extra });
          // The new member's alerts speak the language they signed up in.
          tellAlertLanguage(language, client);
        });
      }}
    >
      {setupRequired ? <Typography.Paragraph type="secondary">{t('auth.signUp.firstRun')}</Typography.Paragraph> : null}
      {setupRequired ? (
        <Form.Item
          name="setupCode"
          label={t('auth.signUp.setupCode')}
          extra={t('auth.signUp.setupCodeHelp')}
          rules={[{ required: true, whitespace: true, message: t('auth.signUp.setupCodeRequired') }]}
        >
          <Input autoComplete="off" spellCheck={false} style={{ fontFamily: 'monospace' }} />
        </Form.Item>
      ) : null}
      <Form.Item
        name="identifier"
        label={t('auth.signUp.identifier')}
        rules={[{ required: true, message: t('auth.signUp.identifierRequired') }]}
      >
        <Input autoComplete="username" />
      </Form.Item>
      <Form.Item name="nickname" label={t('auth.signUp.nickname')}>
        <Input autoComplete="name" />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('auth.signUp.password')}
        rules={[{ required: true, min: 8, max: 128, message: t('auth.signUp.passwordLength') }]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={busy}>
        {t('auth.signUp.submit')}
      </Button>
    </Form>
  );

  const detail = errorDetail(error);
  return (
    <AuthFrame title={t('auth.signIn.title')}>
      {handedOver.passwordReset && !error ? <Alert type="success" showIcon message={t('auth.signIn.passwordReset')} /> : null}
      {error ? <Alert type="error" showIcon message={errorText(error)} description={detail} /> : null}
      {info.data?.signup ? (
        <Tabs
          defaultActiveKey="signUp"
          items={[
            { key: 'signIn', label: t('auth.signIn.submit'), children: signIn },
            { key: 'signUp', label: t('auth.signUp.tab'), children: signUp },
          ]}
        />
      ) : (
        signIn
      )}
    </AuthFrame>
  );
}
