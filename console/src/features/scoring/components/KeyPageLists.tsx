import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Input, Select, Typography } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { LIMITS, parsePages } from '../model.ts';

/** A file of the project as the key pages' picker offers it. */
export interface FileChoice {
  id: string;
  name: string;
  pageCount: number;
}

const h3 = { fontSize: 14, margin: '8px 0' } as const;

/** Key pages of decks: a file of the project picked, its page numbers typed ("3, 4, 7-9"). */
export function KeyPageList({ files }: { files: FileChoice[] }) {
  const { t } = useLazyTexts('scoring');
  const form = Form.useFormInstance();
  const options = files.map((f) => ({ value: f.id, label: f.name }));
  const pagesRule = (index: number) => ({
    validator: async (_: unknown, text: string | undefined) => {
      const pages = parsePages(text ?? '');
      if (pages === null) throw new Error(t('scoring.form.pagesInvalid'));
      const file = files.find((f) => f.id === form.getFieldValue(['keyPages', index, 'fileId']));
      const last = pages[pages.length - 1] ?? 0;
      if (file && file.pageCount > 0 && last > file.pageCount) throw new Error(t('scoring.form.pagesBeyond', { count: file.pageCount }));
    },
  });
  return (
    <section>
      <h3 style={h3}>{t('scoring.keyPages.title')}</h3>
      <Form.List name="keyPages">
        {(rows, { add, remove }) => (
          <Flex vertical gap={4}>
            {rows.map((row) => (
              <Flex key={row.key} gap={8} align="start" wrap data-key-row={row.name}>
                <Form.Item
                  name={[row.name, 'fileId']}
                  rules={[{ required: true, message: t('scoring.form.pickFile') }]}
                  style={{ flex: '2 1 200px', marginBottom: 8 }}
                >
                  <Select
                    aria-label={t('scoring.form.file')}
                    placeholder={t('scoring.form.pickFile')}
                    options={options}
                    showSearch
                    optionFilterProp="label"
                  />
                </Form.Item>
                <Form.Item
                  name={[row.name, 'pages']}
                  rules={[pagesRule(row.name)]}
                  dependencies={[['keyPages', row.name, 'fileId']]}
                  style={{ flex: '1 1 140px', marginBottom: 8 }}
                >
                  <Input aria-label={t('scoring.form.pages')} placeholder={t('scoring.form.pagesPlaceholder')} inputMode="numeric" />
                </Form.Item>
                <Button icon={<DeleteOutlined />} aria-label={t('scoring.form.removeFile')} onClick={() => remove(row.name)} />
              </Flex>
            ))}
            {rows.length < LIMITS.keyPageFiles && (
              <div>
                <Button icon={<PlusOutlined />} onClick={() => add({})}>
                  {t('scoring.form.addFile')}
                </Button>
              </div>
            )}
          </Flex>
        )}
      </Form.List>
    </section>
  );
}

/** Key pages of the website: URL prefixes ("example.com/pricing", "/demo"). */
export function SitePageList() {
  const { t } = useLazyTexts('scoring');
  return (
    <section>
      <h3 style={h3}>{t('scoring.sitePages.title')}</h3>
      <Typography.Paragraph type="secondary">{t('scoring.sitePages.help')}</Typography.Paragraph>
      <Form.List name="siteKeyPages">
        {(rows, { add, remove }) => (
          <Flex vertical gap={4}>
            {rows.map((row) => (
              <Flex key={row.key} gap={8} align="start">
                <Form.Item
                  name={row.name}
                  rules={[{ required: true, whitespace: true, message: t('scoring.form.prefixRequired') }]}
                  style={{ flex: 1, marginBottom: 8 }}
                >
                  <Input
                    aria-label={t('scoring.form.prefix')}
                    placeholder={t('scoring.form.prefixPlaceholder')}
                    maxLength={LIMITS.prefixLength}
                  />
                </Form.Item>
                <Button icon={<DeleteOutlined />} aria-label={t('scoring.form.removePrefix')} onClick={() => remove(row.name)} />
              </Flex>
            ))}
            {rows.length < LIMITS.siteKeyPages && (
              <div>
                <Button icon={<PlusOutlined />} onClick={() => add('')}>
                  {t('scoring.form.addPrefix')}
                </Button>
              </div>
            )}
          </Flex>
        )}
      </Form.List>
    </section>
  );
}
