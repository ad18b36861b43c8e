import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Button, Flex, Typography, Upload } from 'antd';
import { useTranslation } from 'react-i18next';
import { type FileFormat, downloads } from './api.ts';
import { Failure } from './Failure.tsx';
import { byteSize } from './model.ts';
import type { ImportWizardModel } from './useImportWizard.ts';

const ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FORMATS: FileFormat[] = ['csv', 'xlsx'];

/** The wizard's first step: the file to import, and the template to fill in. */
export function FileStep({ wizard: w }: { wizard: ImportWizardModel }) {
  const { t } = useTranslation();
  const { file } = w.state;
  return (
    <Flex vertical gap={16}>
      {w.preview.error ? <Failure error={w.preview.error} /> : null}
      <Upload.Dragger
        accept={ACCEPT}
        maxCount={1}
        showUploadList={false}
        beforeUpload={(f) => {
          w.choose(f);
          return false;
        }}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('customers.import.choose')}</p>
        <p className="ant-upload-hint">{t('customers.import.chooseHint')}</p>
      </Upload.Dragger>
      {file && (
        <Typography.Text strong data-testid="import-file">
          {t('customers.import.chosen', { name: file.name, size: byteSize(file.size) })}
        </Typography.Text>
      )}
      <Flex wrap gap={8} align="center">
        <Typography.Text type="secondary">{t('customers.import.template')}</Typography.Text>
        {FORMATS.map((format) => (
          <Button
            key={format}
            size="small"
            icon={<DownloadOutlined />}
            loading={w.templates.busy === format}
            onClick={() => void w.templates.run(format, () => downloads.template(w.appId, format))}
          >
            {t(`customers.import.templateAs.${format}`)}
          </Button>
        ))}
      </Flex>
    </Flex>
  );
}
