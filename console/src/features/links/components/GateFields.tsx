import { Form, Input, Switch } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';

/** The most characters of an agreement (the server's limit). */
const AGREEMENT_MAX = 20_000;

/**
 * Who may read a link, beyond the passcode: under the e-mail gate, a code mailed to the address
 * and the addresses or domains let through or refused; and an agreement readers accept first. Its
 * texts load with it (`linkGates`).
 */
export function GateFields({ emailGate }: { emailGate: boolean }) {
  const { t } = useLazyTexts('linkGates');
  return (
    <>
      {emailGate ? (
        <>
          <Form.Item
            name="email_verify"
            label={t('linkGates.form.emailVerify')}
            extra={t('linkGates.form.emailVerifyHelp')}
            valuePropName="checked"
          >
            <Switch />
          </Form.Item>
          <Form.Item name="allow_list" label={t('linkGates.form.allowList')} extra={t('linkGates.form.listHelp')}>
            <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} />
          </Form.Item>
          <Form.Item name="deny_list" label={t('linkGates.form.denyList')}>
            <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} />
          </Form.Item>
        </>
      ) : null}
      <Form.Item name="agreement" label={t('linkGates.form.agreement')} extra={t('linkGates.form.agreementHelp')}>
        {/* Room under the box for its count, which antd draws below it (else over the help). */}
        <Input.TextArea autoSize={{ minRows: 3, maxRows: 10 }} maxLength={AGREEMENT_MAX} showCount style={{ marginBottom: 22 }} />
      </Form.Item>
    </>
  );
}
