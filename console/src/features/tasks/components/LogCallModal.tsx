import { Alert, DatePicker, Flex, Form, InputNumber, Modal, Radio } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { errorCode, errorDetail, errorText, fieldErrors } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { toServerTime } from '../../../shared/time/serverTime.ts';
import { useLogCall } from '../api.ts';
import { type Person, callFieldOf, callSeconds } from '../model.ts';
import { MentionBox } from './MentionBox.tsx';

interface Values {
  direction: 'out' | 'in';
  status: 0 | 1;
  callTime: Dayjs;
  minutes: number | null;
  seconds: number | null;
  note?: string;
}

/**
 * Log a call with the customer (docs/tasks.md "Logging a call"): who called, whether it connected,
 * when and for how long, and what was said (a note, with mentions); it lands in the customer's
 * timeline and the project's calls.
 */
export function LogCallModal({
  appId,
  customerId,
  people,
  open,
  onClose,
  onLogged,
}: {
  appId: string;
  customerId: string;
  people: readonly Person[];
  open: boolean;
  onClose: () => void;
  onLogged: () => void;
}) {
  const { t } = useLazyTexts('tasks');
  const [form] = Form.useForm<Values>();
  const log = useLogCall(appId, customerId);
  const [failure, setFailure] = useState<unknown>();

  const submit = async (v: Values) => {
    setFailure(undefined);
    try {
      await log.mutateAsync({
        direction: v.direction,
        call_status: v.status,
        call_time: toServerTime(v.callTime),
        duration: v.status === 1 ? callSeconds(v.minutes, v.seconds) : 0,
        ...(v.note?.trim() ? { note: v.note } : {}),
      });
      onLogged();
    } catch (err) {
      const field = callFieldOf(errorCode(err));
      if (!field) return setFailure(err);
      form.setFields([{ name: field, errors: fieldErrors(err) }]);
    }
  };

  return (
    <Modal
      title={t('tasks.calls.title')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('tasks.calls.save')}
      cancelText={t('common.actions.cancel')}
      confirmLoading={log.isPending}
      destroyOnHidden
    >
      {failure !== undefined && (
        <Alert type="error" showIcon style={{ marginBottom: 12 }} message={errorText(failure)} description={errorDetail(failure)} />
      )}
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ direction: 'out', status: 1, callTime: dayjs(), minutes: null, seconds: null }}
        onFinish={(v) => void submit(v)}
      >
        <Form.Item name="direction" label={t('tasks.calls.direction')}>
          <Radio.Group
            optionType="button"
            options={[
              { value: 'out', label: t('tasks.calls.out') },
              { value: 'in', label: t('tasks.calls.in') },
            ]}
          />
        </Form.Item>
        <Form.Item name="status" label={t('tasks.calls.status')}>
          <Radio.Group
            optionType="button"
            options={[
              { value: 1, label: t('tasks.calls.connected') },
              { value: 0, label: t('tasks.calls.notConnected') },
            ]}
          />
        </Form.Item>
        <Form.Item name="callTime" label={t('tasks.calls.when')} rules={[{ required: true, message: t('tasks.calls.whenRequired') }]}>
          <DatePicker
            showTime={{ format: 'HH:mm' }}
            format="YYYY-MM-DD HH:mm"
            style={{ width: '100%' }}
            allowClear={false}
            disabledDate={(d) => d.isAfter(dayjs(), 'day')}
          />
        </Form.Item>
        <Form.Item noStyle dependencies={['status']}>
          {({ getFieldValue }) =>
            getFieldValue('status') === 1 && (
              <Form.Item label={t('tasks.calls.length')} style={{ marginBottom: 0 }}>
                <Flex gap={8} wrap>
                  <Form.Item name="minutes">
                    <InputNumber
                      min={0}
                      max={1440}
                      precision={0}
                      style={{ width: 130 }}
                      addonAfter={t('tasks.calls.minutes')}
                      aria-label={t('tasks.calls.minutesLabel')}
                    />
                  </Form.Item>
                  <Form.Item name="seconds">
                    <InputNumber
                      min={0}
                      max={59}
                      precision={0}
                      style={{ width: 130 }}
                      addonAfter={t('tasks.calls.seconds')}
                      aria-label={t('tasks.calls.secondsLabel')}
                    />
                  </Form.Item>
                </Flex>
              </Form.Item>
            )
          }
        </Form.Item>
        <Form.Item name="note" label={t('tasks.calls.note')} extra={t('tasks.notes.hint')}>
          <MentionBox people={people} autoSize={{ minRows: 2, maxRows: 8 }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
