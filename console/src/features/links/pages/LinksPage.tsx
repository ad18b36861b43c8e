import { ArrowLeftOutlined, FolderOpenOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Drawer, Grid, Result, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../../shared/i18n/errors.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { Pager } from '../../../shared/ui/Pager.tsx';
import { type LinkItem, linkQueries } from '../api.ts';
import { LinkDetail } from '../components/LinkDetail.tsx';
import { LinkFormDrawer } from '../components/LinkFormDrawer.tsx';
import { LinkList } from '../components/LinkList.tsx';
import { ShareModal } from '../components/ShareLink.tsx';

/** The project's links: make one (a deck or a web page), share it, and see who opened it. */
export function LinksPage() {
  const { appId = '' } = useParams();
  const { t } = useTranslation();
  const { message } = App.useApp();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [search, setSearch] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const openId = search.get('link') ?? undefined;
  const list = useQuery(linkQueries.list(appId, page));
  // The link form: closed, a new link (null), or an edit of the link.
  const [formOf, setFormOf] = useState<LinkItem | null>();
  const [shared, setShared] = useState<LinkItem>();
  const [qrOf, setQrOf] = useState<LinkItem>();
  const rows = list.data?.rows ?? [];
  const opened = openId ? rows.find((l) => l.id === openId) : undefined;

  const go = (patch: Record<string, string | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    setSearch(next);
  };
  const content = list.isError ? (
    <Result
      status="warning"
      title={t('links.loadFailed')}
      subTitle={errorText(list.error)}
      extra={<Button onClick={() => void list.refetch()}>{t('common.actions.retry')}</Button>}
    />
  ) : (
    <LinkList appId={appId} page={page} rows={rows} loading={list.isLoading} wide={wide} onQr={setQrOf} />
  );

  return (
    <>
      <PageHeader
        title={t('links.title')}
        extra={
          <>
            <Link to={`/p/${appId}/rooms`}>
              <Button icon={<FolderOpenOutlined />}>{t('links.rooms')}</Button>
            </Link>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setFormOf(null)}>
              {t('links.new')}
            </Button>
          </>
        }
      />
      <Typography.Paragraph type="secondary">{t('links.intro')}</Typography.Paragraph>
      {content}
      <Pager page={page} hasMore={Boolean(list.data?.hasMore)} onPage={(p) => go({ page: String(p), link: undefined })} />
      {/* The form's texts (linkGates) load as it opens. */}
      {formOf !== undefined && (
        <Suspense fallback={null}>
          <LinkFormDrawer
            appId={appId}
            link={formOf ?? undefined}
            onClose={() => setFormOf(undefined)}
            onCreated={(l) => {
              setFormOf(undefined);
              setShared(l);
              void message.success(t('links.form.created'));
            }}
            onSaved={() => setFormOf(undefined)}
          />
        </Suspense>
      )}
      <ShareModal link={shared} title={t('links.share.title', { name: shared?.name ?? '' })} onClose={() => setShared(undefined)} />
      <ShareModal link={qrOf} title={t('links.qrTitle', { name: qrOf?.name ?? '' })} onClose={() => setQrOf(undefined)} />
      <Drawer
        open={openId !== undefined}
        title={opened?.name ?? t('links.title')}
        width={wide ? 800 : '100%'}
        onClose={() => go({ link: undefined })}
        destroyOnHidden
        extra={
          <Button type="text" icon={<ArrowLeftOutlined />} onClick={() => go({ link: undefined })}>
            {t('links.detail.back')}
          </Button>
        }
      >
        {opened ? (
          <LinkDetail appId={appId} link={opened} onEdit={() => setFormOf(opened)} />
        ) : list.isLoading ? null : (
          <Result status="404" title={t('links.detail.notFound')} />
        )}
      </Drawer>
    </>
  );
}
