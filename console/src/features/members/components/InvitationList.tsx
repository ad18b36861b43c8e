import { useQuery } from '@tanstack/react-query';
import { App, Button, Flex, List, Popconfirm, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DateTime } from '../../../shared/ui/DateTime.tsx';
import { invitationQueries, useResendInvitation, useRevokeInvitation } from '../api.ts';
import type { IssuedLink } from './InvitationLink.tsx';

/** The project's pending invitations, for its Master and Admins: resend (a new link to copy) or revoke. */
export function InvitationList({ appId, master, onIssued }: { appId: string; master: boolean; onIssued: (issued: IssuedLink) => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const invitations = useQuery(invitationQueries.list(appId));
  const resend = useResendInvitation(appId);
  const revoke = useRevokeInvitation(appId);
  return (
    <section aria-labelledby="pending-invitations">
      <Typography.Title level={2} id="pending-invitations" style={{ fontSize: 18, marginTop: 24 }}>
        {t('members.invitations')}
      </Typography.Title>
      <List
        loading={invitations.isLoading}
        dataSource={invitations.data ?? []}
        locale={{ emptyText: <Typography.Text type="secondary">{t('members.noInvitations')}</Typography.Text> }}
        renderItem={(i) => {
          // Only the Master resends or revokes an Admin's invitation, as only the Master makes one.
          const mine = master || i.role !== 'Admin';
          return (
            <List.Item
              actions={
                mine
                  ? [
                      <Button
                        key="resend"
                        size="small"
                        loading={resend.isPending && resend.variables === i.id}
                        onClick={() =>
                          void resend.mutateAsync(i.id).then((made) => {
                            void message.success(t('members.resent'));
                            onIssued({ email: made.email, url: made.url });
                          })
                        }
                      >
                        {t('members.resend')}
                      </Button>,
                      <Popconfirm
                        key="revoke"
                        title={t('members.revokeConfirm', { email: i.email })}
                        okText={t('members.revoke')}
                        cancelText={t('common.actions.cancel')}
                        onConfirm={() => void revoke.mutateAsync(i.id).then(() => message.success(t('members.revoked')))}
                      >
                        <Button danger size="small">
                          {t('members.revoke')}
                        </Button>
                      </Popconfirm>,
                    ]
                  : []
              }
            >
              <List.Item.Meta
                title={
                  <Flex gap={8} wrap align="center">
                    <span style={{ overflowWrap: 'anywhere' }}>{i.email}</span>
                    <Tag>{t(`members.roles.${i.role as 'Sales'}`)}</Tag>
                  </Flex>
                }
                description={
                  <span>
                    {t('members.expiresOn')}: <DateTime value={i.expiresAt} />
                  </span>
                }
              />
            </List.Item>
          );
        }}
      />
    </section>
  );
}
