import { Flex, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type Rules, pagesText } from '../model.ts';
import { useRuleWords } from './useRuleWords.ts';

const list = { margin: 0, paddingInlineStart: 20 } as const;
const h3 = { fontSize: 14, margin: '0 0 4px' } as const;

/** The rules in words, for every member: what earns points, how they fade, when a hot lead is announced, the key pages. */
export function ScoringRules({ rules, fileName }: { rules: Rules; fileName: (id: string) => string | undefined }) {
  const { t } = useLazyTexts('scoring');
  const words = useRuleWords(rules);
  return (
    <Flex vertical gap={12} data-testid="scoring-rules">
      <section>
        <h3 style={h3}>{t('scoring.earn')}</h3>
        <ul style={list}>
          {words.earn.map((e) => (
            <li key={e.key} data-rule={e.key}>
              {e.text}
            </li>
          ))}
        </ul>
      </section>
      <ul style={list}>
        <li data-rule="halfLife">{words.halfLife}</li>
        <li data-rule="hot">{words.hot}</li>
      </ul>
      <section>
        <h3 style={h3}>{t('scoring.keyPages.title')}</h3>
        {rules.keyPages.length === 0 ? (
          <Typography.Text type="secondary">{t('scoring.keyPages.none')}</Typography.Text>
        ) : (
          <ul style={list}>
            {rules.keyPages.map((k) => (
              <li key={k.fileId} data-key-file={k.fileId}>
                {t('scoring.keyPages.file', {
                  pages: pagesText(k.pages),
                  name: fileName(k.fileId) ?? t('scoring.keyPages.unknownFile', { id: k.fileId }),
                })}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h3 style={h3}>{t('scoring.sitePages.title')}</h3>
        {rules.siteKeyPages.length === 0 ? (
          <Typography.Text type="secondary">{t('scoring.sitePages.none')}</Typography.Text>
        ) : (
          <ul style={list}>
            {rules.siteKeyPages.map((p) => (
              <li key={p} data-site-page={p}>
                <Typography.Text code>{p}</Typography.Text>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Flex>
  );
}
