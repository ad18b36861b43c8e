import { DownOutlined, ExportOutlined } from '@ant-design/icons';
import { ApiError } from '@rapport/sdk';
import { App, Button } from 'antd';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveFile } from '../../../shared/api/download.ts';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import type { CustomerListParams } from '../api.ts';
import { type FileFormat, downloads } from './api.ts';
import { byteSize } from './model.ts';

// The menu's code (antd's dropdown and menu) loads when the button is first pressed (or pointed at, or focused).
const loadMenu = () => import('./ExportMenu.tsx').then((m) => ({ default: m.ExportMenu }));
const ExportMenu = lazy(loadMenu);
const prefetchMenu = () => void loadMenu().catch(() => undefined);

/**
 * Export of the customer list as it is filtered (its keyword, group and owner), as CSV or XLSX. The
 * file is read a chunk at a time (the bytes so far on the button, which stops the download while
 * it runs). When the project does not let Sales members export, the server's refusal is shown and the
 * button explains it from then on.
 */
export function ExportButton({ params, isManager }: { params: CustomerListParams; isManager: boolean }) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [bytes, setBytes] = useState<number | null>(null);
  const [refused, setRefused] = useState<unknown>(null);
  // The menu is drawn (its code fetched) from the first press on; open while `menuOpen`.
  const [menuWanted, setMenuWanted] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  /** The refusal: the console's words, the error table's text for the code and the server's own detail. */
  const explain = (err: unknown): void => {
    modal.error({
      title: t('customers.export.off'),
      content: (
        <>
          <p>{errorText(err)}</p>
          {errorDetail(err) ? <p>{errorDetail(err)}</p> : null}
        </>
      ),
    });
  };

  const exportAs = async (format: FileFormat) => {
    const controller = new AbortController();
    running.current = controller;
    setBytes(0);
    try {
      saveFile(
        await downloads.customers(
          params.appId,
          format,
          { keyword: params.keyword, group: params.group, owner: params.owner },
          setBytes,
          controller.signal,
        ),
      );
      void message.success(t('customers.export.done'));
    } catch (err) {
      if (controller.signal.aborted) return;
      if (err instanceof ApiError && err.code === 'forbidden' && !isManager) {
        setRefused(err);
        explain(err);
        return;
      }
      const detail = errorDetail(err);
      void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
    } finally {
      if (running.current === controller) running.current = null;
      setBytes(null);
    }
  };

  if (bytes !== null) {
    return (
      <Button icon={<ExportOutlined />} loading onClick={() => running.current?.abort()} aria-label={t('customers.export.cancel')}>
        {t('customers.export.running', { size: byteSize(bytes) })}
      </Button>
    );
  }
  if (refused) {
    // Still focusable: pressed, it says again why there is no export.
    return (
      <Button icon={<ExportOutlined />} onClick={() => explain(refused)}>
        {t('customers.export.button')}
      </Button>
    );
  }
  const button = (
    <Button
      icon={<ExportOutlined />}
      onMouseEnter={prefetchMenu}
      onFocus={prefetchMenu}
      onClick={
        menuWanted
          ? undefined
          : () => {
              setMenuWanted(true);
              setMenuOpen(true);
            }
      }
    >
      {t('customers.export.button')} <DownOutlined />
    </Button>
  );
  if (!menuWanted) return button;
  return (
    <Suspense fallback={button}>
      <ExportMenu open={menuOpen} onOpenChange={setMenuOpen} onChoose={(format) => void exportAs(format)}>
        {button}
      </ExportMenu>
    </Suspense>
  );
}
