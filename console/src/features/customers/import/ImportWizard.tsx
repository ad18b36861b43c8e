import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Drawer, Flex, Grid, Progress, Radio, Select, Space, Statistic, Steps, Typography, Upload } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveFile } from '../../../shared/api/download.ts';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import { memberQueries } from '../../members/index.ts';
import { customerQueries } from '../api.ts';
import { useFieldLabel } from '../components/useFieldLabel.ts';
import { type FileFormat, type ImportJob, downloads, importQueries, refreshCustomers, usePreview, useStartImport } from './api.ts';
import {
  type ColumnMapping,
  type ImportableField,
  anyMapped,
  assign,
  byteSize,
  initialMapping,
  isSettled,
  mappingField,
  percentDone,
  unmappedRequired,
} from './model.ts';

interface Props {
  appId: string;
  /** The acting member: the path's svc-user-id, and the default owner of the rows. */
  me: number;
  /** Master or Admin: the rows may be given another owner. */
  isManager: boolean;
  open: boolean;
  /** An import already running (after a reload): the wizard opens on its progress. */
  resume?: string | undefined;
  /** Called with the import whose end the user has just seen in the drawer, if any. */
  onClose: (seenEnded?: string) => void;
}

type Policy = 'skip' | 'update' | 'merge';
const POLICIES: Policy[] = ['skip', 'update', 'merge'];
const ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A failure from the server, in the user's language, with its detail under it. */
function Failure({ error }: { error: unknown }) {
  return <Alert type="error" showIcon style={{ marginBottom: 16 }} message={errorText(error)} description={errorDetail(error)} />;
}

/** Starts a download of a file the API answers, showing its failure. */
function useDownload() {
  const { message } = App.useApp();
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (key: string, get: () => ReturnType<typeof downloads.template>) => {
    setBusy(key);
    try {
      saveFile(await get());
    } catch (err) {
      const detail = errorDetail(err);
      void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
    } finally {
      setBusy(null);
    }
  };
  return { busy, run };
}

/** A job's progress and, once it is over, what it did (or would do: a dry run), with its failed rows to download. */
function JobOutcome({ appId, me, job }: { appId: string; me: number; job: ImportJob }) {
  const { t } = useTranslation();
  const download = useDownload();
  const settled = isSettled(job);
  const counts = (['created', 'updated', 'skipped', 'failed'] as const).map((k) => ({ key: k, value: job[k] }));
  return (
    <Flex vertical gap={16}>
      <Typography.Text>
        {settled
          ? t(job.dryRun ? 'customers.import.dryRunDone' : 'customers.import.done', { file: job.fileName, count: job.processed })
          : job.total > 0
            ? t('customers.import.progress', { processed: job.processed, total: job.total })
            : t('customers.import.counting')}
      </Typography.Text>
      <Progress
        percent={percentDone(job)}
        status={job.status === 'failed' ? 'exception' : settled ? 'success' : 'active'}
        aria-label={t('customers.import.progressLabel')}
      />
      {job.status === 'failed' && (
        <Alert type="error" showIcon message={t('customers.import.jobFailed')} description={job.error ?? undefined} />
      )}
      <Flex wrap gap={24} role="group" aria-label={t(job.dryRun ? 'customers.import.wouldDo' : 'customers.import.did')}>
        {counts.map((c) => (
          <Statistic
            key={c.key}
            title={t(`customers.import.counts.${c.key}`)}
            value={c.value}
            valueStyle={c.key === 'failed' && c.value > 0 ? { color: '#cf1322' } : undefined}
          />
        ))}
      </Flex>
      {settled && job.failed > 0 && (
        <div>
          <Button
            icon={<DownloadOutlined />}
            loading={download.busy === 'problems'}
            onClick={() => void download.run('problems', () => downloads.problems(appId, me, job.id))}
          >
            {t('customers.import.problems')}
          </Button>
        </div>
      )}
    </Flex>
  );
}

/**
 * Customers from a CSV or XLSX file, in four steps (docs/console.md "Import and export"): the file
 * (or the template), its columns mapped to the project's attributes (prefilled from the server's own
 * matching), a dry run of what would happen, and the import with its progress and summary.
 */
export function ImportWizard({ appId, me, isManager, open, resume, onClose }: Props) {
  const { t } = useTranslation();
  const label = useFieldLabel();
  const client = useQueryClient();
  const wide = Boolean(Grid.useBreakpoint().md);
  const [step, setStep] = useState(0);
  const [file, setFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping>([]);
  const [owner, setOwner] = useState(me);
  const [group, setGroup] = useState<string | undefined>(undefined);
  const [policy, setPolicy] = useState<Policy>('skip');
  const [dryRunId, setDryRunId] = useState<string | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const preview = usePreview(appId);
  const start = useStartImport(appId, me);
  const download = useDownload();

  const metadata = useQuery({ ...customerQueries.metadata(appId), enabled: open });
  const members = useQuery({ ...memberQueries.list(appId), enabled: open && isManager });
  const groups = useQuery({ ...importQueries.groupsOf(appId, owner), enabled: open && step === 1 });
  const dryRun = useQuery({ ...importQueries.job(appId, me, dryRunId ?? ''), enabled: open && dryRunId !== null });
  const run = useQuery({ ...importQueries.job(appId, me, runId ?? ''), enabled: open && runId !== null });
  const fields: ImportableField[] = useMemo(
    () => (metadata.data ?? []).filter((m) => m.readonly === 0).map((m) => ({ name: m.name, title: m.title, required: m.required })),
    [metadata.data],
  );

  useEffect(() => {
    if (open && resume) {
      setRunId(resume);
      setStep(3);
    }
  }, [open, resume]);

  // A real import's customers join the list as soon as it is over.
  const runDone = run.data?.status === 'done';
  useEffect(() => {
    if (runDone) void refreshCustomers(client, appId);
  }, [runDone, client, appId]);

  const reset = () => {
    setStep(0);
    setFile(null);
    setMapping([]);
    setOwner(me);
    setGroup(undefined);
    setPolicy('skip');
    setDryRunId(null);
    setRunId(null);
    preview.reset();
    start.reset();
  };
  const close = () => {
    const seen = run.data && isSettled(run.data) ? run.data.id : undefined;
    reset();
    onClose(seen);
  };

  const readFile = async () => {
    if (!file) return;
    try {
      const answer = await preview.mutateAsync(file);
      setMapping(initialMapping(answer.mapping, fields));
      setStep(1);
    } catch {
      // shown from preview.error
    }
  };
  const startJob = async (dry: boolean) => {
    if (!file) return;
    try {
      const job = await start.mutateAsync({ file, mapping: mappingField(mapping), ownerId: owner, groupId: group, policy, dryRun: dry });
      if (dry) {
        setDryRunId(job.id);
        setStep(2);
      } else {
        setRunId(job.id);
        setStep(3);
      }
    } catch {
      // shown from start.error
    }
  };

  const columns = preview.data?.mapping ?? [];
  const sample = preview.data?.rows[0] ?? [];
  const missing = unmappedRequired(mapping, fields);
  const stepTitles = [
    t('customers.import.steps.file'),
    t('customers.import.steps.map'),
    t('customers.import.steps.check'),
    t('customers.import.steps.run'),
  ];

  const fileStep = (
    <Flex vertical gap={16}>
      {preview.error ? <Failure error={preview.error} /> : null}
      <Upload.Dragger
        accept={ACCEPT}
        maxCount={1}
        showUploadList={false}
        beforeUpload={(f) => {
          setFile(f);
          preview.reset();
          return false;
        }}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('customers.import.choose')}</p>
        <p className="ant-upload-hint">{t('customers.import.chooseHint')}</p>
      </Upload.Dragger>
      {file && (
        <Typography.Text strong data-testid="import-file">
          {t('customers.import.chosen', { name: file.name, size: byteSize(file.size) })}
        </Typography.Text>
      )}
      <Flex wrap gap={8} align="center">
        <Typography.Text type="secondary">{t('customers.import.template')}</Typography.Text>
        {(['csv', 'xlsx'] as FileFormat[]).map((format) => (
          <Button
            key={format}
            size="small"
            icon={<DownloadOutlined />}
            loading={download.busy === format}
            onClick={() => void download.run(format, () => downloads.template(appId, format))}
          >
            {t(`customers.import.templateAs.${format}`)}
          </Button>
        ))}
      </Flex>
    </Flex>
  );

  const mapStep = (
    <Flex vertical gap={16}>
      {start.error ? <Failure error={start.error} /> : null}
      <Typography.Text type="secondary">{t('customers.import.mapHint')}</Typography.Text>
      <Flex vertical gap={8} role="list" aria-label={t('customers.import.steps.map')}>
        {columns.map((c, i) => (
          <Flex
            key={i}
            role="listitem"
            wrap={!wide}
            gap={wide ? 16 : 4}
            align={wide ? 'center' : 'stretch'}
            vertical={!wide}
            style={{ paddingBottom: 8, borderBottom: '1px solid rgba(5,5,5,0.06)' }}
          >
            <Flex vertical style={{ width: wide ? 260 : '100%', minWidth: 0 }}>
              <Typography.Text strong ellipsis>
                {c.column || t('customers.import.columnN', { n: i + 1 })}
              </Typography.Text>
              {sample[i] ? (
                <Typography.Text type="secondary" ellipsis style={{ fontSize: 12 }}>
                  {t('customers.import.example', { value: sample[i] })}
                </Typography.Text>
              ) : null}
            </Flex>
            <Select
              aria-label={t('customers.import.mapColumn', { column: c.column || i + 1 })}
              style={{ width: wide ? 280 : '100%' }}
              value={mapping[i] ?? ''}
              onChange={(v: string) => setMapping((m) => assign(m, i, v))}
              showSearch
              optionFilterProp="label"
              options={[
                { value: '', label: t('customers.import.ignore') },
                ...fields.map((f) => ({ value: f.name, label: f.required ? `${label(f.name, f.title)} *` : label(f.name, f.title) })),
              ]}
            />
          </Flex>
        ))}
      </Flex>
      {!anyMapped(mapping) ? (
        <Alert type="error" showIcon message={t('customers.import.noneMapped')} />
      ) : missing.length > 0 ? (
        <Alert
          type="warning"
          showIcon
          message={t('customers.import.requiredMissing', { fields: missing.map((f) => label(f.name, f.title)).join(', ') })}
        />
      ) : null}
      {isManager && (
        <Flex vertical gap={4}>
          <Typography.Text id="import-owner">{t('customers.import.owner')}</Typography.Text>
          <Select
            aria-labelledby="import-owner"
            style={{ width: wide ? 280 : '100%' }}
            value={String(owner)}
            onChange={(v: string) => {
              setOwner(Number(v));
              setGroup(undefined);
            }}
            options={(members.data ?? [{ svcUserId: me, user: null }]).map((m) => ({
              value: String(m.svcUserId),
              label: m.user?.userName || String(m.svcUserId),
            }))}
          />
        </Flex>
      )}
      <Flex vertical gap={4}>
        <Typography.Text id="import-group">{t('customers.import.group')}</Typography.Text>
        <Select
          aria-labelledby="import-group"
          style={{ width: wide ? 280 : '100%' }}
          value={group ?? ''}
          onChange={(v: string) => setGroup(v || undefined)}
          options={[{ value: '', label: t('customers.noGroup') }, ...(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))]}
        />
      </Flex>
      <Flex vertical gap={4}>
        <Typography.Text id="import-policy">{t('customers.import.duplicates')}</Typography.Text>
        <Radio.Group aria-labelledby="import-policy" value={policy} onChange={(e) => setPolicy(e.target.value as Policy)}>
          <Space direction="vertical">
            {POLICIES.map((p) => (
              <Radio key={p} value={p}>
                {t(`customers.import.policy.${p}`)}
              </Radio>
            ))}
          </Space>
        </Radio.Group>
      </Flex>
    </Flex>
  );

  const checkStep = (
    <Flex vertical gap={16}>
      {start.error ? <Failure error={start.error} /> : null}
      <Typography.Text type="secondary">{t('customers.import.checkHint')}</Typography.Text>
      {dryRun.error && !dryRun.data ? <Failure error={dryRun.error} /> : null}
      {dryRun.data ? <JobOutcome appId={appId} me={me} job={dryRun.data as ImportJob} /> : null}
    </Flex>
  );

  const runStep = (
    <Flex vertical gap={16}>
      {run.error && !run.data ? <Failure error={run.error} /> : null}
      {run.data ? <JobOutcome appId={appId} me={me} job={run.data as ImportJob} /> : null}
      {run.data && !isSettled(run.data) ? <Typography.Text type="secondary">{t('customers.import.closeHint')}</Typography.Text> : null}
    </Flex>
  );

  const dryRunOver = dryRun.data !== undefined && dryRun.data.status === 'done';
  const footer = (
    <Flex justify="end" gap={8} wrap>
      {step === 0 && (
        <Button type="primary" disabled={!file || fields.length === 0} loading={preview.isPending} onClick={() => void readFile()}>
          {t('common.actions.next')}
        </Button>
      )}
      {step === 1 && (
        <>
          <Button onClick={() => setStep(0)}>{t('common.actions.previous')}</Button>
          <Button type="primary" disabled={!anyMapped(mapping)} loading={start.isPending} onClick={() => void startJob(true)}>
            {t('customers.import.check')}
          </Button>
        </>
      )}
      {step === 2 && (
        <>
          <Button
            onClick={() => {
              start.reset();
              setStep(1);
            }}
          >
            {t('common.actions.previous')}
          </Button>
          <Button type="primary" disabled={!dryRunOver} loading={start.isPending} onClick={() => void startJob(false)}>
            {t('customers.import.run')}
          </Button>
        </>
      )}
      {step === 3 && (
        <>
          {run.data && isSettled(run.data) && <Button onClick={reset}>{t('customers.import.another')}</Button>}
          <Button type="primary" onClick={close}>
            {t('customers.import.finish')}
          </Button>
        </>
      )}
    </Flex>
  );

  return (
    <Drawer title={t('customers.import.title')} open={open} onClose={close} width={wide ? 720 : '100%'} destroyOnHidden footer={footer}>
      <Flex vertical gap={24}>
        {wide ? (
          <Steps size="small" current={step} items={stepTitles.map((title) => ({ title }))} />
        ) : (
          <Typography.Text strong>{t('customers.import.stepOf', { n: step + 1, total: 4, title: stepTitles[step] })}</Typography.Text>
        )}
        {[fileStep, mapStep, checkStep, runStep][step]}
      </Flex>
    </Drawer>
  );
}
