import { Alert, DatePicker, Form, Input, Modal, Radio, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { errorCode, errorDetail, errorText, fieldErrors } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { toServerTime } from '../../../shared/time/serverTime.ts';
import { useAddTask } from '../api.ts';
import { KINDS, type Person, type TaskKind, defaultDue, taskFieldOf } from '../model.ts';

interface Values {
  title: string;
  kind: TaskKind;
  dueAt: Dayjs;
  assignee: number;
  notes?: string;
}

/** A new task on a customer: what, what kind, when it is due (in the user's zone), for whom, notes. */
export function TaskFormModal({
  appId,
  customerId,
  people,
  myId,
  open,
  onClose,
  onAdded,
}: {
  appId: string;
  customerId: string;
  people: readonly Person[];
  myId: number | undefined;
  open: boolean;
  onClose: () => void;
  onAdded: () => void;
}) {
  const { t } = useLazyTexts('tasks');
  const [form] = Form.useForm<Values>();
  const add = useAddTask(appId);
  const [failure, setFailure] = useState<unknown>();

  const submit = async (v: Values) => {
    setFailure(undefined);
    try {
      await add.mutateAsync({
        customer_id: customerId,
        title: v.title.trim(),
        kind: v.kind,
        due_at: toServerTime(v.dueAt),
        assignee_id: v.assignee,
        ...(v.notes?.trim() ? { notes: v.notes.trim() } : {}),
      });
      onAdded();
    } catch (err) {
      const field = taskFieldOf(errorCode(err));
      if (!field) return setFailure(err);
      form.setFields([{ name: field, errors: fieldErrors(err) }]);
    }
  };

  return (
    <Modal
      title={t('tasks.form.title')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('tasks.form.add')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={add.isPending}
      destroyOnHidden
    >
      {failure !== undefined && (
        <Alert type="error" showIcon style={{ marginBottom: 12 }} message={errorText(failure)} description={errorDetail(failure)} />
      )}
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ kind: 'call', dueAt: defaultDue(dayjs()), assignee: myId }}
        onFinish={(v) => void submit(v)}
      >
        <Form.Item
          name="title"
          label={t('tasks.form.what')}
          rules={[{ required: true, whitespace: true, message: t('tasks.form.whatRequired') }]}
        >
          <Input maxLength={200} autoFocus placeholder={t('tasks.form.whatPlaceholder')} />
        </Form.Item>
        <Form.Item name="kind" label={t('tasks.form.kind')}>
          <Radio.Group optionType="button" options={KINDS.map((k) => ({ value: k, label: t(`tasks.kinds.${k}`) }))} />
        </Form.Item>
        <Form.Item name="dueAt" label={t('tasks.form.due')} rules={[{ required: true, message: t('tasks.form.dueRequired') }]}>
          <DatePicker showTime={{ format: 'HH:mm' }} format="YYYY-MM-DD HH:mm" style={{ width: '100%' }} allowClear={false} />
        </Form.Item>
        <Form.Item name="assignee" label={t('tasks.form.assignee')} rules={[{ required: true, message: t('tasks.form.assigneeRequired') }]}>
          <Select options={people.map((p) => ({ value: p.id, label: p.id === myId ? t('tasks.me', { name: p.name }) : p.name }))} />
        </Form.Item>
        <Form.Item name="notes" label={t('tasks.form.notes')}>
          <Input.TextArea maxLength={4000} autoSize={{ minRows: 2, maxRows: 6 }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
