import { Dropdown } from 'antd';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';
import type { FileFormat } from './api.ts';

/**
 * The export's menu (CSV or XLSX) on its button: antd's dropdown and menu, in a chunk loaded when the
 * button is first pressed (ExportButton.tsx), which opens it. Opened with the keyboard, the menu takes
 * the focus: arrows move in it, Enter chooses.
 */
export function ExportMenu(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onChoose: (format: FileFormat) => void;
  children: ReactElement;
}) {
  const { t } = useTranslation();
  const { open, onOpenChange: setOpen, onChoose, children } = props;
  return (
    <Dropdown
      trigger={['click']}
      autoFocus
      open={open}
      onOpenChange={setOpen}
      menu={{
        items: (['csv', 'xlsx'] as FileFormat[]).map((format) => ({ key: format, label: t(`customers.export.as.${format}`) })),
        onClick: ({ key }) => {
          setOpen(false);
          onChoose(key as FileFormat);
        },
      }}
    >
      {children}
    </Dropdown>
  );
}
