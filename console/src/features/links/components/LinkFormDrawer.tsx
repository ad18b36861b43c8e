import { Button, Drawer, Form, Grid, Skeleton } from 'antd';
import { Suspense } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { LinkFormValues } from '../linkForm.ts';
import { type LinkFormOptions, useLinkForm } from '../useLinkForm.ts';
import { GateFields } from './GateFields.tsx';
import { AccessFields, CustomerField, NameFields } from './LinkFields.tsx';
import { TargetFields } from './LinkTargetFields.tsx';

/** The e-mail gate's own fields (its code, lists) while it is on, and the agreement. */
function Gates() {
  const emailGate = Form.useWatch('email_gate', Form.useFormInstance<LinkFormValues>()) ?? false;
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 2 }} />}>
      <GateFields emailGate={emailGate} />
    </Suspense>
  );
}

/**
 * The link form, in a drawer: a new link (a deck chosen or uploaded here, or a web address, and its
 * options), or an edit of one (`link`), which starts from its settings and sends only what changed.
 * Mounted while open; it suspends until its texts, which load with the gates' (`linkGates`), are there.
 * It stays in the links page's chunk: a chunk of its own split antd's fade motion out of a chunk of the
 * console's first load (0.4 KB more there).
 */
export function LinkFormDrawer({ onClose, ...options }: LinkFormOptions & { onClose: () => void }) {
  const { appId, link } = options;
  const { t } = useLazyTexts('linkGates');
  const wide = Boolean(Grid.useBreakpoint().md);
  const { form, initial, submit, upload, saving } = useLinkForm(options);
  return (
    <Drawer
      title={link ? t('linkGates.edit.title', { name: link.name ?? '' }) : t('links.form.title')}
      open
      onClose={onClose}
      width={wide ? 520 : '100%'}
      destroyOnHidden
      extra={
        <Button type="primary" loading={saving} onClick={() => form.submit()}>
          {link ? t('linkGates.edit.save') : t('links.form.create')}
        </Button>
      }
    >
      <Form<LinkFormValues> form={form} layout="vertical" requiredMark={false} initialValues={initial} onFinish={(v) => void submit(v)}>
        <NameFields />
        <TargetFields appId={appId} upload={upload} link={link} />
        <CustomerField appId={appId} current={link?.customer} />
        <AccessFields hasPasscode={Boolean(link?.hasPasscode)} />
        <Gates />
      </Form>
    </Drawer>
  );
}
