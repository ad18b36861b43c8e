import { Button, Flex } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ImportWizardModel } from './useImportWizard.ts';

/** The wizard's buttons for the step shown: on, back, another import, finish. */
export function WizardFooter({ wizard: w }: { wizard: ImportWizardModel }) {
  const { t } = useTranslation();
  const { step, file } = w.state;
  const done = useRef<HTMLButtonElement>(null);
  // Once the import is over, the focus (lost when the button pressed to start it went away) is on
  // "Done": Enter or Escape closes the drawer.
  const over = step === 3 && w.run.settled;
  useEffect(() => {
    if (over) done.current?.focus();
  }, [over]);
  return (
    <Flex justify="end" gap={8} wrap>
      {step === 0 && (
        <Button type="primary" disabled={!file || w.fields.length === 0} loading={w.preview.isPending} onClick={() => void w.readFile()}>
          {t('common.actions.next')}
        </Button>
      )}
      {step === 1 && (
        <>
          <Button onClick={w.back}>{t('common.actions.previous')}</Button>
          <Button type="primary" disabled={!w.mapped} loading={w.start.isPending} onClick={() => void w.startJob(true)}>
            {t('customers.import.check')}
          </Button>
        </>
      )}
      {step === 2 && (
        <>
          <Button onClick={w.back}>{t('common.actions.previous')}</Button>
          <Button type="primary" disabled={!w.dryRun.over} loading={w.start.isPending} onClick={() => void w.startJob(false)}>
            {t('customers.import.run')}
          </Button>
        </>
      )}
      {step === 3 && (
        <>
          {w.run.settled && <Button onClick={w.reset}>{t('customers.import.another')}</Button>}
          <Button ref={done} type="primary" onClick={w.close}>
            {t('customers.import.finish')}
          </Button>
        </>
      )}
    </Flex>
  );
}
