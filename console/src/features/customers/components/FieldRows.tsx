import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { Button, Card, Flex, List, Popconfirm, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MetadataItem } from '../api.ts';
import { useFieldLabel } from './useFieldLabel.ts';

interface Props {
  fields: MetadataItem[];
  loading: boolean;
  /** A Master or Admin: each field has its actions (move, edit, remove a custom one). */
  manages: boolean;
  wide: boolean;
  onMove: (field: MetadataItem, position: number) => void;
  onEdit: (field: MetadataItem) => void;
  onRemove: (field: MetadataItem) => void;
}

/**
 * The project's customer fields in form order: a table on a wide screen (its actions column held at
 * the right edge), a card each on a phone, whose actions sit under the field, every one in reach.
 */
export function FieldRows({ fields, loading, manages, wide, onMove, onEdit, onRemove }: Props) {
  const { t, i18n } = useTranslation();
  const label = useFieldLabel();
  // Every type the server names (the custom ones and the built-in fields' own) in the user's words.
  const typeName = (ty: string) =>
    i18n.exists(`customers.fieldEditor.types.${ty}`) ? t(`customers.fieldEditor.types.${ty as 'text'}`) : ty;
  const flags = (f: MetadataItem) => (
    <Flex gap={4} wrap>
      {f.isExt ? <Tag color="blue">{t('customers.fieldEditor.custom')}</Tag> : null}
      {f.required ? <Tag>{t('customers.fieldEditor.flags.required')}</Tag> : null}
      {f.unique ? <Tag>{t('customers.fieldEditor.flags.unique')}</Tag> : null}
      {f.readonly === 1 ? <Tag>{t('customers.fieldEditor.flags.readonly')}</Tag> : null}
      {f.searchable ? <Tag>{t('customers.fieldEditor.flags.searchable')}</Tag> : null}
    </Flex>
  );
  // On a phone the buttons are of the size a finger taps.
  const size = wide ? 'small' : 'middle';
  const actions = (f: MetadataItem, i: number) => (
    <Flex gap={4} wrap>
      <Button
        size={size}
        icon={<ArrowUpOutlined />}
        aria-label={t('customers.fieldEditor.up')}
        disabled={i === 0}
        onClick={() => onMove(f, i - 1)}
      />
      <Button
        size={size}
        icon={<ArrowDownOutlined />}
        aria-label={t('customers.fieldEditor.down')}
        disabled={i === fields.length - 1}
        onClick={() => onMove(f, i + 1)}
      />
      <Button size={size} onClick={() => onEdit(f)}>
        {t('common.actions.edit')}
      </Button>
      {f.isExt ? (
        <Popconfirm
          title={t('customers.fieldEditor.removeConfirm', { name: label(f.name, f.title) })}
          okText={t('customers.fieldEditor.remove')}
          cancelText={t('common.actions.cancel')}
          onConfirm={() => onRemove(f)}
        >
          <Button size={size} danger>
            {t('customers.fieldEditor.remove')}
          </Button>
        </Popconfirm>
      ) : null}
    </Flex>
  );

  if (!wide)
    return (
      <List
        loading={loading}
        dataSource={fields}
        rowKey="name"
        renderItem={(f, i) => (
          <List.Item style={{ padding: 0, border: 'none', marginBottom: 8 }}>
            <Card size="small" style={{ width: '100%' }}>
              <Flex vertical gap={8}>
                <Flex justify="space-between" align="baseline" gap={8} wrap>
                  <Typography.Text strong>{label(f.name, f.title)}</Typography.Text>
                  <Typography.Text type="secondary">{typeName(f.type)}</Typography.Text>
                </Flex>
                <Flex justify="space-between" align="center" gap={8} wrap>
                  <Flex gap={4} align="center" wrap style={{ minWidth: 0 }}>
                    <Typography.Text code style={{ wordBreak: 'break-all' }}>
                      {f.name}
                    </Typography.Text>
                    {flags(f)}
                  </Flex>
                  {manages ? actions(f, i) : null}
                </Flex>
              </Flex>
            </Card>
          </List.Item>
        )}
      />
    );
  return (
    <Table
      rowKey="name"
      size="small"
      loading={loading}
      pagination={false}
      dataSource={fields}
      scroll={{ x: 'max-content' }}
      columns={[
        { title: t('customers.fieldEditor.label'), key: 'label', render: (_, f) => label(f.name, f.title) },
        { title: t('customers.fieldEditor.name'), dataIndex: 'name', render: (n: string) => <Typography.Text code>{n}</Typography.Text> },
        { title: t('customers.fieldEditor.type'), dataIndex: 'type', render: (ty: string) => typeName(ty) },
        { title: t('customers.fieldEditor.settings'), key: 'flags', render: (_, f) => flags(f) },
        ...(manages
          ? [
              {
                title: t('customers.fieldEditor.actions'),
                key: 'actions',
                fixed: 'right' as const,
                render: (_: unknown, f: MetadataItem, i: number) => actions(f, i),
              },
            ]
          : []),
      ]}
    />
  );
}
