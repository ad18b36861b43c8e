import { FileOutlined, FolderOutlined, MoreOutlined } from '@ant-design/icons';
import { Button, Dropdown, Empty, Flex, Input, Typography, theme } from 'antd';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import { type DraftItem, MAX_DEPTH, type Row, rowsOf } from '../model.ts';
import type { RoomEditor } from '../useRoomEditor.ts';

/** One row of the tree: a folder (its name edited in place) or a document, and its actions. */
function TreeRow({ row, editor, divided }: { row: Row; editor: RoomEditor; divided: boolean }) {
  const { t } = useLazyTexts('rooms');
  const { token } = theme.useToken();
  const { item, depth } = row;
  const folder = item.type === 'folder';
  const label = folder ? item.name || t('rooms.editor.folderName') : item.name;
  const menu = [
    { key: 'up', label: t('rooms.editor.moveUp'), disabled: row.first, onClick: () => editor.move(item.key, -1) },
    { key: 'down', label: t('rooms.editor.moveDown'), disabled: row.last, onClick: () => editor.move(item.key, 1) },
    ...(folder
      ? [
          { key: 'folder', label: t('rooms.editor.addFolderIn'), disabled: depth >= MAX_DEPTH, onClick: () => editor.addFolder(item.key) },
          { key: 'files', label: t('rooms.editor.addFilesIn'), onClick: () => editor.picker.show(item.key) },
        ]
      : []),
    { key: 'remove', label: t('rooms.editor.remove'), danger: true, onClick: () => editor.removeItem(item.key) },
  ];
  return (
    <Flex
      align="center"
      gap={8}
      style={{ minHeight: 48, paddingLeft: (depth - 1) * 20, borderTop: divided ? `1px solid ${token.colorBorderSecondary}` : undefined }}
      data-room-row={item.key}
    >
      {folder ? <FolderOutlined style={{ color: '#b07800' }} /> : <FileOutlined style={{ color: token.colorPrimary }} />}
      {folder ? (
        <Input
          aria-label={t('rooms.editor.folderName')}
          value={item.name}
          maxLength={200}
          status={editor.has('folderName') && item.name.trim() === '' ? 'error' : undefined}
          onChange={(e) => editor.rename(item.key, e.target.value)}
          style={{ flex: 1, minWidth: 0 }}
        />
      ) : (
        <Typography.Text style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>{item.name}</Typography.Text>
      )}
      {!folder && item.pageCount !== null && (
        <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap' }}>
          {t('rooms.editor.pages', { count: item.pageCount })}
        </Typography.Text>
      )}
      <Dropdown menu={{ items: menu }} trigger={['click']}>
        <Button type="text" icon={<MoreOutlined />} aria-label={t('rooms.editor.actions', { name: label })} />
      </Dropdown>
    </Flex>
  );
}

/** The room's folders and documents, in order, each with its actions; adding at the root below. */
export function TreeEditor({ editor }: { editor: RoomEditor }) {
  const { t } = useLazyTexts('rooms');
  const rows = rowsOf(editor.items as DraftItem[]);
  return (
    <Flex vertical>
      {rows.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('rooms.editor.empty')} />
      ) : (
        rows.map((row, i) => <TreeRow key={row.item.key} row={row} editor={editor} divided={i > 0} />)
      )}
      <Flex gap={8} wrap style={{ marginTop: 12 }}>
        <Button onClick={() => editor.picker.show(null)}>{t('rooms.editor.addFiles')}</Button>
        <Button onClick={() => editor.addFolder(null)}>{t('rooms.editor.addFolder')}</Button>
      </Flex>
    </Flex>
  );
}
