import { Modal, Select, Typography } from 'antd';
import { useState } from 'react';
import { useLazyTexts } from '../../../shared/i18n/lazyTexts.ts';
import type { RoomEditor } from '../useRoomEditor.ts';

/** The project's files not in the room yet, to add to the folder the picker was opened for. */
export function FilePicker({ editor }: { editor: RoomEditor }) {
  const { t } = useLazyTexts('rooms');
  const [chosen, setChosen] = useState<string[]>([]);
  const { picker } = editor;
  const close = () => {
    setChosen([]);
    picker.close();
  };
  return (
    <Modal
      title={t('rooms.picker.title')}
      open={picker.open}
      okText={t('rooms.picker.add')}
      okButtonProps={{ disabled: chosen.length === 0 }}
      onOk={() => {
        picker.add(chosen);
        setChosen([]);
      }}
      onCancel={close}
      destroyOnHidden
    >
      {picker.files.length === 0 && !picker.loading ? (
        <Typography.Paragraph type="secondary">{t('rooms.picker.none')}</Typography.Paragraph>
      ) : (
        <label>
          {t('rooms.picker.files')}
          <Select
            mode="multiple"
            style={{ width: '100%', marginTop: 4 }}
            placeholder={t('rooms.picker.placeholder')}
            loading={picker.loading}
            value={chosen}
            onChange={setChosen}
            optionFilterProp="label"
            options={picker.files.map((f) => ({ value: f.id, label: f.name }))}
          />
        </label>
      )}
    </Modal>
  );
}
