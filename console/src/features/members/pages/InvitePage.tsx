import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Result, Skeleton, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { useSignedIn } from '../../../app/useSession.ts';
import { useLanguage } from '../../../app/useLanguage.ts';
import { session } from '../../../shared/api/session.ts';
import { tellAlertLanguage } from '../../notifications/index.ts';
import { errorCode, errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { AuthFrame } from '../../auth/index.ts';
import { invitationQueries, useAcceptInvitation } from '../api.ts';

interface Preview {
  projectName: string;
  inviterName: string;
  email: string;
  role: string;
}

/** Signed out: the account of the invited address (name and password), made and signed in, joining the project. */
function SignUpToJoin({ token, preview, onJoined }: { token: string; preview: Preview; onJoined: (appId: string) => void }) {
  const { t } = useTranslation();
  const [language] = useLanguage();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (v: { nickname: string; password: string }) => {
    setBusy(true);
    setError(null);
    try {
      const appId = await session.signUpInvited({ token, nickname: v.nickname.trim(), password: v.password });
      // The new member's alerts speak the language they signed up in.
      tellAlertLanguage(language, client);
      onJoined(appId);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const next = `/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`;
  const taken = errorCode(error) === 'email_existed';
  return (
    <>
      {error ? (
        <Alert
          type="error"
          showIcon
          message={taken ? t('members.accept.emailTaken', { email: preview.email }) : errorText(error)}
          description={taken ? undefined : errorDetail(error)}
        />
      ) : null}
      <Typography.Paragraph>{t('members.accept.signUpIntro', { email: preview.email })}</Typography.Paragraph>
      <Form layout="vertical" requiredMark={false} onFinish={(v: { nickname: string; password: string }) => void submit(v)}>
        <Form.Item label={t('members.email')}>
          <Input value={preview.email} readOnly autoComplete="username" aria-label={t('members.email')} />
        </Form.Item>
        <Form.Item
          name="nickname"
          label={t('members.accept.nickname')}
          rules={[{ required: true, whitespace: true, message: t('members.accept.nicknameRequired') }]}
        >
          <Input autoComplete="name" maxLength={64} />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('members.accept.password')}
          rules={[{ required: true, min: 8, max: 128, message: t('members.accept.passwordLength') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={busy}>
          {t('members.accept.create')}
        </Button>
      </Form>
      <Typography.Paragraph style={{ margin: 0, textAlign: 'center' }}>
        <Link to={next}>{t('members.accept.haveAccount')}</Link>
      </Typography.Paragraph>
    </>
  );
}

/** Signed in: join with this account. */
function JoinSignedIn({ token, preview, onJoined }: { token: string; preview: Preview; onJoined: (appId: string) => void }) {
  const { t } = useTranslation();
  const accept = useAcceptInvitation();
  return (
    <>
      {accept.error ? <Alert type="error" showIcon message={errorText(accept.error)} description={errorDetail(accept.error)} /> : null}
      <Typography.Paragraph>{t('members.accept.signedInAs')}</Typography.Paragraph>
      <Button
        type="primary"
        block
        loading={accept.isPending}
        onClick={() => void accept.mutateAsync(token).then((member) => onJoined(member.appId))}
      >
        {t('members.accept.join', { project: preview.projectName })}
      </Button>
    </>
  );
}

/**
 * /console/invite/:token, an invitation's link (docs/console.md): what it invites to, then a new
 * account (even with sign-up closed) or, signed in, joining with this one; then the project.
 */
export function InvitePage() {
  const { token = '' } = useParams();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const signedIn = useSignedIn();
  const preview = useQuery(invitationQueries.preview(token));
  const joined = (appId: string) => {
    client.clear();
    void navigate(`/p/${appId}/home`, { replace: true });
  };

  if (preview.isLoading) {
    return (
      <AuthFrame title={t('members.linkTitle')}>
        <Skeleton active />
      </AuthFrame>
    );
  }
  if (!preview.data) {
    return (
      <AuthFrame title={t('members.accept.invalidTitle')}>
        <Result
          status="warning"
          title={t('members.accept.invalid')}
          extra={
            <Link to="/">
              <Button>{t('members.accept.toConsole')}</Button>
            </Link>
          }
        />
      </AuthFrame>
    );
  }
  const p = preview.data;
  const role = t(`members.roles.${p.role as 'Sales'}`);
  return (
    <AuthFrame title={t('members.accept.title', { project: p.projectName })}>
      <Typography.Paragraph style={{ margin: 0 }}>
        {t('members.accept.invitedBy', { inviter: p.inviterName, email: p.email, project: p.projectName, role })}
      </Typography.Paragraph>
      {signedIn ? (
        <JoinSignedIn token={token} preview={p} onJoined={joined} />
      ) : (
        <SignUpToJoin token={token} preview={p} onJoined={joined} />
      )}
    </AuthFrame>
  );
}
