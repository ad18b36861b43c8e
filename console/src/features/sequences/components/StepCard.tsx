import { ArrowDownOutlined, ArrowUpOutlined, DeleteOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, InputNumber, Select, Tag, Typography } from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { useRef } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { MAX_WAIT, MERGE_FIELDS, STEP_TYPES, type Step, insertAt, unknownMergeFields } from '../model.ts';
import type { SequenceEditor } from '../useSequenceEditor.ts';

/** The merge fields' marks, as the hints show them (i18next would fill them in otherwise). */
const MARKS = { name: '{{name}}', own_link: '{{own_link}}', interpolation: { escapeValue: false } };

interface Props {
  editor: SequenceEditor;
  index: number;
  step: Step;
  /** The business day it runs on, counted from enrolment. */
  day: number;
  onPreview: (index: number) => void;
}

/** One step of the editor: its kind, its wait, its mail (or what the member is to do), moved up or down, removed. */
export function StepCard({ editor: e, index, step, day, onPreview }: Props) {
  const { t } = useLazyTexts('sequences');
  const body = useRef<TextAreaRef>(null);
  const count = e.draft.steps.length;
  const id = `step-${index}`;
  const email = step.type === 'email';
  const insert = (field: string) => {
    const area = body.current?.resizableTextArea?.textArea;
    const { text, caret } = insertAt(step.html, area ? area.selectionStart : null, field);
    e.setStep(index, { html: text });
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(caret, caret);
    });
  };
  return (
    <Card
      size="small"
      data-step={index}
      role="group"
      aria-label={t('sequences.step.label', { n: index + 1 })}
      title={
        <Flex gap={8} align="center" wrap>
          <Tag color="blue" style={{ margin: 0 }}>
            {t('sequences.step.number', { n: index + 1 })}
          </Tag>
          <Typography.Text type="secondary" style={{ fontWeight: 'normal', fontSize: 13 }}>
            {day === 0 ? t('sequences.step.dayZero') : t('sequences.step.day', { day })}
          </Typography.Text>
        </Flex>
      }
      extra={
        <Flex gap={4}>
          <Button
            size="small"
            type="text"
            icon={<ArrowUpOutlined />}
            aria-label={t('sequences.step.up', { n: index + 1 })}
            disabled={index === 0}
            onClick={() => e.moveStep(index, index - 1)}
          />
          <Button
            size="small"
            type="text"
            icon={<ArrowDownOutlined />}
            aria-label={t('sequences.step.down', { n: index + 1 })}
            disabled={index === count - 1}
            onClick={() => e.moveStep(index, index + 1)}
          />
          <Button
            size="small"
            type="text"
            danger
            icon={<DeleteOutlined />}
            aria-label={t('sequences.step.remove', { n: index + 1 })}
            disabled={count === 1}
            onClick={() => e.removeStep(index)}
          />
        </Flex>
      }
    >
      <Flex vertical gap={12}>
        <Flex gap={12} wrap>
          <label style={{ flex: '1 1 200px' }}>
            <div>{t('sequences.step.type')}</div>
            <Select
              aria-label={t('sequences.step.typeOf', { n: index + 1 })}
              style={{ width: '100%' }}
              value={step.type}
              onChange={(type) => e.setStep(index, { type })}
              options={STEP_TYPES.map((v) => ({ value: v, label: t(`sequences.types.${v}`) }))}
            />
          </label>
          <label style={{ flex: '1 1 200px' }}>
            <div>{index === 0 ? t('sequences.step.waitFirst') : t('sequences.step.wait')}</div>
            <InputNumber
              aria-label={t('sequences.step.waitOf', { n: index + 1 })}
              min={0}
              max={MAX_WAIT}
              precision={0}
              style={{ width: '100%' }}
              value={step.waitDays}
              status={e.has('waitDays', index) ? 'error' : undefined}
              onChange={(v) => e.setStep(index, { waitDays: v ?? 0 })}
              addonAfter={t('sequences.step.days')}
            />
          </label>
        </Flex>
        <label htmlFor={`${id}-title`}>{email ? t('sequences.step.subject') : t('sequences.step.taskTitle')}</label>
        <Input
          id={`${id}-title`}
          value={step.title}
          maxLength={1000}
          status={e.has('title', index) ? 'error' : undefined}
          placeholder={
            email ? t('sequences.step.subjectHint') : t(`sequences.step.titleHint.${step.type as Exclude<Step['type'], 'email'>}`)
          }
          onChange={(ev) => e.setStep(index, { title: ev.target.value })}
        />
        {e.has('title', index) && <Typography.Text type="danger">{t('sequences.step.titleRequired')}</Typography.Text>}
        {email ? (
          <>
            <label htmlFor={`${id}-html`}>{t('sequences.step.body')}</label>
            <Flex gap={4} wrap role="toolbar" aria-label={t('sequences.step.mergeFields')}>
              {MERGE_FIELDS.map((f) => (
                <Button key={f} size="small" autoInsertSpace={false} onClick={() => insert(f)}>
                  {t(`sequences.merge.${f}`)}
                </Button>
              ))}
            </Flex>
            <Input.TextArea
              id={`${id}-html`}
              ref={body}
              rows={6}
              value={step.html}
              status={e.has('html', index) || e.has('htmlFields', index) ? 'error' : undefined}
              placeholder={t('sequences.step.bodyHint', MARKS)}
              onChange={(ev) => e.setStep(index, { html: ev.target.value })}
            />
            {e.has('html', index) && <Typography.Text type="danger">{t('sequences.step.bodyRequired')}</Typography.Text>}
            {e.has('htmlFields', index) && (
              <Typography.Text type="danger">
                {t('sequences.step.unknownFields', {
                  fields: unknownMergeFields(step.html)
                    .map((f) => `{{${f}}}`)
                    .join(', '),
                  interpolation: { escapeValue: false },
                })}
              </Typography.Text>
            )}
            <div>
              <Button icon={<EyeOutlined />} onClick={() => onPreview(index)} disabled={step.html.trim() === ''}>
                {t('sequences.step.preview')}
              </Button>
            </div>
          </>
        ) : (
          <>
            <label htmlFor={`${id}-note`}>{t('sequences.step.note')}</label>
            <Input.TextArea
              id={`${id}-note`}
              rows={3}
              value={step.note}
              maxLength={4000}
              placeholder={t(`sequences.step.noteHint.${step.type as Exclude<Step['type'], 'email'>}`)}
              onChange={(ev) => e.setStep(index, { note: ev.target.value })}
            />
          </>
        )}
      </Flex>
    </Card>
  );
}
