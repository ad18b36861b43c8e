import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** A chunk that failed to load (a stale page after a new build, a dropped connection). */
function isChunkFailure(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dynamically imported module|Importing a module script failed|error loading dynamically|ChunkLoadError/i.test(text);
}

/** What a route shows when it throws: a reload for a failed chunk, else a plain apology with a retry. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation();
  const chunk = isChunkFailure(error);
  return (
    <Result
      status={chunk ? 'warning' : 'error'}
      title={t(chunk ? 'common.errors.chunkTitle' : 'common.errors.pageTitle')}
      subTitle={chunk ? t('common.errors.chunkText') : undefined}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('common.actions.reload')}
        </Button>
      }
    />
  );
}
