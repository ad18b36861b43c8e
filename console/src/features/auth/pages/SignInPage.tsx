import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Form, Input, Tabs, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { LanguageSwitch } from '../../../app/layout/AppLayout.tsx';
import { useSignedIn } from '../../../app/useSession.ts';
import { session } from '../../../shared/api/session.ts';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { authQueries } from '../api.ts';

/** Only paths of the console itself are followed after signing in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** Sign-in, and sign-up when the server allows it (ALLOW_SIGNUP, or nobody uses it yet). */
export function SignInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [params] = useSearchParams();
  const signedIn = useSignedIn();
  const info = useQuery(authQueries.serverInfo());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
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
      layout="vertical"
      requiredMark={false}
      onFinish={(v: { username: string; password: string }) => void run(() => session.signIn(v.username.trim(), v.password))}
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
    </Form>
  );

  const signUp = (
    <Form
      layout="vertical"
      requiredMark={false}
      onFinish={(v: { identifier: string; nickname?: string; password: string }) => {
        const id = v.identifier.trim();
        const fields = id.includes('@') ? { email: id } : { phoneNum: id };
        void run(() => session.signUp({ ...fields, password: v.password, ...(v.nickname ? { nickname: v.nickname.trim() } : {}) }));
      }}
    >
      {info.data?.signup ? <Typography.Paragraph type="secondary">{t('auth.signUp.firstRun')}</Typography.Paragraph> : null}
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
    <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', padding: 16, background: '#f5f7fa' }}>
      <Card style={{ width: '100%', maxWidth: 400 }}>
        <Flex vertical gap={16}>
          <Flex justify="space-between" align="center" wrap gap={8}>
            <Typography.Title level={1} style={{ margin: 0, fontSize: 22 }}>
              {t('auth.signIn.title')}
            </Typography.Title>
            <LanguageSwitch />
          </Flex>
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
        </Flex>
      </Card>
    </main>
  );
}
