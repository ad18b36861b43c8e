import { Drawer, Flex, Grid, Steps, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Failure } from './Failure.tsx';
import { FileStep } from './FileStep.tsx';
import { JobOutcome } from './JobOutcome.tsx';
import { MapStep } from './MapStep.tsx';
import { type WizardProps, useImportWizard } from './useImportWizard.ts';
import { STEPS } from './wizardState.ts';
import { WizardFooter } from './WizardFooter.tsx';

/**
 * Customers from a CSV or XLSX file, in four steps (docs/console.md "Import and export"): the file
 * (or the template), its columns mapped to the project's attributes (prefilled from the server's own
 * matching), a dry run of what would happen, and the import with its progress and summary.
 */
export function ImportWizard(props: WizardProps) {
  const { t } = useTranslation();
  const wide = Boolean(Grid.useBreakpoint().md);
  const w = useImportWizard(props);
  const { appId, me, state, dryRun, run } = w;
  const stepTitles = STEPS.map((s) => t(`customers.import.steps.${s}`));

  const checkStep = (
    <Flex vertical gap={16}>
      {w.start.error ? <Failure error={w.start.error} /> : null}
      <Typography.Text type="secondary">{t('customers.import.checkHint')}</Typography.Text>
      {dryRun.error && !dryRun.job ? <Failure error={dryRun.error} /> : null}
      {dryRun.job ? <JobOutcome appId={appId} me={me} job={dryRun.job} /> : null}
    </Flex>
  );

  const runStep = (
    <Flex vertical gap={16}>
      {run.error && !run.job ? <Failure error={run.error} /> : null}
      {run.job ? <JobOutcome appId={appId} me={me} job={run.job} /> : null}
      {run.job && !run.settled ? <Typography.Text type="secondary">{t('customers.import.closeHint')}</Typography.Text> : null}
    </Flex>
  );

  return (
    <Drawer
      title={t('customers.import.title')}
      open={props.open}
      onClose={w.close}
      width={wide ? 720 : '100%'}
      destroyOnHidden
      footer={<WizardFooter wizard={w} />}
    >
      <Flex vertical gap={24}>
        {wide ? (
          <Steps size="small" current={state.step} items={stepTitles.map((title) => ({ title }))} />
        ) : (
          <Typography.Text strong>
            {t('customers.import.stepOf', { n: state.step + 1, total: 4, title: stepTitles[state.step] })}
          </Typography.Text>
        )}
        {[<FileStep key="file" wizard={w} />, <MapStep key="map" wizard={w} wide={wide} />, checkStep, runStep][state.step]}
      </Flex>
    </Drawer>
  );
}
