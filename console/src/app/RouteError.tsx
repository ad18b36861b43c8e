import { CloseCircleFilled, WarningFilled } from '@ant-design/icons';
import { Button, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** A chunk that failed to load (a stale page after a new build, a dropped connection). */
function isChunkFailure(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dynamically imported module|Importing a module script failed|error loading dynamically|ChunkLoadError/i.test(text);
}

/**
 * What a route shows when it throws: a reload for a failed chunk, else a plain apology with a retry.
 * Drawn as antd's Result draws a warning or an error, without its module (which brings the three
 * illustrations of its 403, 404 and 500 pages): this is in the first load, and must not itself wait
 * for a chunk.
 */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const chunk = isChunkFailure(error);
  const Icon = chunk ? WarningFilled : CloseCircleFilled;
  return (
    <div style={{ padding: `${token.paddingLG * 2}px ${token.paddingXL}px`, textAlign: 'center' }}>
      <Icon style={{ fontSize: 72, color: chunk ? token.colorWarning : token.colorError, marginBottom: token.marginLG }} />
      <div
        style={{
          color: token.colorTextHeading,
          fontSize: token.fontSizeHeading3,
          lineHeight: token.lineHeightHeading3,
          marginBlock: token.marginXS,
        }}
      >
        {t(chunk ? 'common.errors.chunkTitle' : 'common.errors.pageTitle')}
      </div>
      {chunk && <div style={{ color: token.colorTextDescription, fontSize: token.fontSize }}>{t('common.errors.chunkText')}</div>}
      <div style={{ marginTop: token.marginLG }}>
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('common.actions.reload')}
        </Button>
      </div>
    </div>
  );
}
