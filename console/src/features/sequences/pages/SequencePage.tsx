import { ArrowLeftOutlined, DeleteOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Result, Skeleton, Tabs } from 'antd';
import { Suspense } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { PageHeader } from '../../../shared/ui/PageHeader.tsx';
import { EnrollmentsList } from '../components/EnrollmentsList.tsx';
import { FunnelCard } from '../components/FunnelCard.tsx';
import { SequenceForm } from '../components/SequenceForm.tsx';
import { useSequenceEditor } from '../useSequenceEditor.ts';

const TABS = ['steps', 'funnel', 'enrollments'] as const;

function Sequence() {
  const e = useSequenceEditor();
  const { t } = useLazyTexts('sequences');
  const [search, setSearch] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(search.get('tab') ?? '') ? (search.get('tab') as (typeof TABS)[number]) : 'steps';
  const back = (
    <Link to={`/p/${e.appId}/sequences`}>
      <ArrowLeftOutlined /> {t('sequences.page.back')}
    </Link>
  );
  if (e.sequenceId && e.stored.isError) return <Result status="404" title={t('sequences.page.notFound')} extra={back} />;
  if (e.sequenceId && !e.stored.data) return <Skeleton active paragraph={{ rows: 8 }} />;
  const title = e.sequenceId ? e.stored.data?.name : t('sequences.page.new');
  const form = <SequenceForm editor={e} />;
  return (
    <>
      {back}
      <PageHeader
        title={title}
        extra={
          e.sequenceId && (
            <Popconfirm
              title={t('sequences.editor.archiveConfirm')}
              okText={t('sequences.editor.archive')}
              okButtonProps={{ danger: true }}
              onConfirm={e.archive}
            >
              <Button danger icon={<DeleteOutlined />} loading={e.archiving}>
                {t('sequences.editor.archive')}
              </Button>
            </Popconfirm>
          )
        }
      />
      {e.sequenceId ? (
        <Tabs
          activeKey={tab}
          onChange={(k) => setSearch(k === 'steps' ? {} : { tab: k }, { replace: true })}
          items={[
            { key: 'steps', label: t('sequences.tabs.steps'), children: form },
            { key: 'funnel', label: t('sequences.tabs.funnel'), children: <FunnelCard appId={e.appId} sequenceId={e.sequenceId} /> },
            {
              key: 'enrollments',
              label: t('sequences.tabs.enrollments'),
              children: <EnrollmentsList appId={e.appId} sequenceId={e.sequenceId} stepCount={e.draft.steps.length} />,
            },
          ]}
        />
      ) : (
        form
      )}
    </>
  );
}

/** A sequence: its steps (a new sequence, or a new version of one), its funnel and its enrolments. */
export function SequencePage() {
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} />}>
      <Sequence />
    </Suspense>
  );
}
