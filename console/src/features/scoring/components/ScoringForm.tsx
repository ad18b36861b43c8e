import { Alert, App, Button, Col, Flex, Form, InputNumber, Popconfirm, Row } from 'antd';
import { useState } from 'react';
import { fieldErrors } from '../../../shared/i18n/errors.ts';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { invalidSetting, useSaveScoring } from '../api.ts';
import { DEFAULT_RULES, type Rules, type RulesForm, WEIGHT_KEYS, fieldOfDetail, formOf, inputOf, percentOf } from '../model.ts';
import { type FileChoice, KeyPageList, SitePageList } from './KeyPageLists.tsx';
import { useRuleWords } from './useRuleWords.ts';

const h3 = { fontSize: 14, margin: '8px 0' } as const;
const col = { xs: 24, sm: 12, xl: 8 } as const;

/** A number of the rules: its label, its limits and default under it; the server checks the range. */
function NumberField({ name, label, help, step = 1 }: { name: (string | number)[]; label: string; help: string; step?: number }) {
  const { t } = useLazyTexts('scoring');
  return (
    <Col {...col}>
      <Form.Item name={name} label={label} extra={help} rules={[{ required: true, message: t('scoring.form.required') }]}>
        <InputNumber style={{ width: '100%' }} step={step} />
      </Form.Item>
    </Col>
  );
}

/** The points of each behaviour, then the half-life, the deck share, the return window and the hot-lead score. */
function NumberFields() {
  const { t } = useLazyTexts('scoring');
  const d = DEFAULT_RULES;
  return (
    <>
      <h3 style={h3}>{t('scoring.form.points')}</h3>
      <Row gutter={16}>
        {WEIGHT_KEYS.map((k) => (
          <NumberField
            key={k}
            name={['weights', k]}
            label={t(`scoring.form.${k}`)}
            help={t('scoring.form.weightHelp', { value: d.weights[k] })}
            step={k === 'key_page_second' ? 0.1 : 1}
          />
        ))}
      </Row>
      <h3 style={h3}>{t('scoring.form.time')}</h3>
      <Row gutter={16}>
        <NumberField
          name={['halfLifeDays']}
          label={t('scoring.form.halfLifeDays')}
          help={t('scoring.form.halfLifeHelp', { value: d.halfLifeDays })}
        />
        <NumberField
          name={['deckPercent']}
          label={t('scoring.form.deckPercent')}
          help={t('scoring.form.deckPercentHelp', { value: percentOf(d.deckShare) })}
          step={5}
        />
        <NumberField
          name={['returnDays']}
          label={t('scoring.form.returnDays')}
          help={t('scoring.form.returnDaysHelp', { value: d.returnDays })}
        />
        <NumberField name={['hotScore']} label={t('scoring.form.hotScore')} help={t('scoring.form.hotScoreHelp', { value: d.hotScore })} />
      </Row>
    </>
  );
}

/** The defaults in words, where "reset to defaults" asks to be confirmed. */
function DefaultWords({ capSeconds }: { capSeconds: number }) {
  const { t } = useLazyTexts('scoring');
  const words = useRuleWords({ ...DEFAULT_RULES, keyPageCapSeconds: capSeconds });
  return (
    <div style={{ maxWidth: 340 }} data-testid="scoring-defaults">
      <p style={{ margin: '0 0 4px' }}>{t('scoring.form.resetConfirm')}</p>
      <ul style={{ margin: 0, paddingInlineStart: 18 }}>
        {[...words.earn.map((e) => e.text), words.halfLife, words.hot].map((text) => (
          <li key={text}>{text}</li>
        ))}
      </ul>
    </div>
  );
}

interface Props {
  appId: string;
  rules: Rules;
  files: FileChoice[];
  onDone: () => void;
}

/**
 * The rules to change (Master/Admin): every number with its limits and default, a file's key pages,
 * the site's key pages. The server's refusal is shown at the field it names; "reset to defaults"
 * fills the default numbers in (the key pages stay), saved like any change.
 */
export function ScoringForm({ appId, rules, files, onDone }: Props) {
  const { t } = useLazyTexts('scoring');
  const { message } = App.useApp();
  const [form] = Form.useForm<RulesForm>();
  const save = useSaveScoring(appId);
  const [problem, setProblem] = useState<string>();

  const submit = async (values: RulesForm) => {
    setProblem(undefined);
    try {
      await save.mutateAsync(inputOf(values));
      void message.success(t('scoring.form.saved'));
      onDone();
    } catch (err) {
      const detail = invalidSetting(err);
      const field = detail === undefined ? undefined : fieldOfDetail(detail, values);
      if (field === undefined) return setProblem(fieldErrors(err).join(' — '));
      // A path the server named: antd types paths by the form's shape, which a parsed path cannot show.
      const name = field as Parameters<typeof form.scrollToField>[0];
      form.setFields([{ name, errors: fieldErrors(err) }]);
      form.scrollToField(name, { block: 'center' });
    }
  };
  const reset = () => {
    const defaults = formOf(DEFAULT_RULES);
    form.setFieldsValue({ ...defaults, keyPages: form.getFieldValue('keyPages'), siteKeyPages: form.getFieldValue('siteKeyPages') });
    void message.info(t('scoring.form.resetDone'));
  };

  return (
    <Form form={form} layout="vertical" requiredMark={false} initialValues={formOf(rules)} onFinish={(v) => void submit(v)}>
      <NumberFields />
      <KeyPageList files={files} />
      <SitePageList />
      {problem && <Alert style={{ marginTop: 12 }} type="error" showIcon role="alert" message={problem} />}
      <Flex wrap gap={8} style={{ marginTop: 16 }}>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {t('scoring.form.save')}
        </Button>
        <Button onClick={onDone}>{t('scoring.form.cancel')}</Button>
        <Popconfirm
          title={t('scoring.form.reset')}
          description={<DefaultWords capSeconds={rules.keyPageCapSeconds} />}
          okText={t('scoring.form.reset')}
          cancelText={t('scoring.form.cancel')}
          onConfirm={reset}
        >
          <Button>{t('scoring.form.reset')}</Button>
        </Popconfirm>
      </Flex>
    </Form>
  );
}
