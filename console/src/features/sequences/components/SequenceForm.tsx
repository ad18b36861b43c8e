import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Dropdown, Flex, Input, InputNumber, Select, Typography } from 'antd';
import { useState } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { sequenceQueries } from '../api.ts';
import { MAX_STEPS, STEP_TYPES, dayOfStep } from '../model.ts';
import type { SequenceEditor } from '../useSequenceEditor.ts';
import { MailPreview } from './MailPreview.tsx';
import { StepCard } from './StepCard.tsx';

/** The deck a sequence follows, and the step a reading of it jumps to. */
function DeckCard({ editor: e }: { editor: SequenceEditor }) {
  const { t } = useLazyTexts('sequences');
  const decks = useQuery(sequenceQueries.decks(e.appId));
  const { deckLinkId, jump, steps } = e.draft;
  return (
    <Card size="small" title={<h2 style={{ fontSize: 16, margin: 0 }}>{t('sequences.deck.title')}</h2>}>
      <Flex vertical gap={8}>
        <Typography.Text type="secondary">{t('sequences.deck.hint')}</Typography.Text>
        <Select
          aria-label={t('sequences.deck.link')}
          placeholder={t('sequences.deck.none')}
          allowClear
          showSearch
          optionFilterProp="label"
          loading={decks.isLoading}
          value={deckLinkId ?? undefined}
          onChange={(v: string | undefined) => e.setDeck(v ?? null)}
          options={(decks.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
        />
        {deckLinkId && (
          <Flex gap={8} align="center" wrap>
            <span>{t('sequences.deck.when')}</span>
            <InputNumber
              aria-label={t('sequences.deck.readShare')}
              min={1}
              max={100}
              precision={0}
              addonAfter="%"
              style={{ width: 120 }}
              value={jump?.readShare}
              onChange={(v) => e.setJump(v == null ? null : { readShare: v, toStep: jump?.toStep ?? Math.min(1, steps.length - 1) })}
            />
            <span>{t('sequences.deck.jumpTo')}</span>
            <Select
              aria-label={t('sequences.deck.toStep')}
              style={{ minWidth: 160 }}
              disabled={!jump}
              status={e.has('jump') ? 'error' : undefined}
              value={jump?.toStep}
              onChange={(toStep: number) => jump && e.setJump({ ...jump, toStep })}
              options={steps.slice(1).map((s, i) => ({
                value: i + 1,
                label: `${t('sequences.step.number', { n: i + 2 })} · ${t(`sequences.types.${s.type}`)}`,
              }))}
            />
          </Flex>
        )}
        {e.has('jump') && <Typography.Text type="danger">{t('sequences.deck.invalid')}</Typography.Text>}
      </Flex>
    </Card>
  );
}

/** The editor: the sequence's name, its deck and jump, its steps (each added, changed, moved, removed), Save. */
export function SequenceForm({ editor: e }: { editor: SequenceEditor }) {
  const { t } = useLazyTexts('sequences');
  const [previewing, setPreviewing] = useState<number | undefined>();
  const { steps } = e.draft;
  return (
    <Flex vertical gap={16}>
      <Card size="small">
        <label htmlFor="sequence-name">{t('sequences.editor.name')}</label>
        <Input
          id="sequence-name"
          value={e.draft.name}
          maxLength={200}
          status={e.has('name') ? 'error' : undefined}
          placeholder={t('sequences.editor.nameHint')}
          onChange={(ev) => e.setName(ev.target.value)}
          style={{ marginTop: 4 }}
        />
        {e.has('name') && <Typography.Text type="danger">{t('sequences.editor.nameRequired')}</Typography.Text>}
        {e.version !== undefined && (
          <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
            {t('sequences.editor.versionNote', { version: e.version })}
          </Typography.Paragraph>
        )}
      </Card>
      {steps.map((s, i) => (
        <StepCard key={i} editor={e} index={i} step={s} day={dayOfStep(steps, i)} onPreview={setPreviewing} />
      ))}
      <div>
        <Dropdown
          disabled={steps.length >= MAX_STEPS}
          menu={{
            items: STEP_TYPES.map((v) => ({ key: v, label: t(`sequences.types.${v}`) })),
            onClick: ({ key }) => e.addStep(key as (typeof STEP_TYPES)[number]),
          }}
        >
          <Button icon={<PlusOutlined />}>{t('sequences.editor.addStep')}</Button>
        </Dropdown>
      </div>
      <DeckCard editor={e} />
      <Flex justify="flex-end">
        <Button type="primary" onClick={e.submit} loading={e.saving}>
          {e.sequenceId ? t('sequences.editor.saveVersion') : t('sequences.editor.create')}
        </Button>
      </Flex>
      <MailPreview
        appId={e.appId}
        step={previewing === undefined ? undefined : steps[previewing]}
        onClose={() => setPreviewing(undefined)}
      />
    </Flex>
  );
}
