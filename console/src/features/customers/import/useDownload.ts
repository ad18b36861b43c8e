import { App } from 'antd';
import { useState } from 'react';
import { saveFile } from '../../../shared/api/download.ts';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';
import type { downloads } from './api.ts';

/** Starts a download of a file the API answers, showing its failure; `busy` names the one under way. */
export function useDownload() {
  const { message } = App.useApp();
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (key: string, get: () => ReturnType<typeof downloads.template>) => {
    setBusy(key);
    try {
      saveFile(await get());
    } catch (err) {
      const detail = errorDetail(err);
      void message.error(detail ? `${errorText(err)} (${detail})` : errorText(err));
    } finally {
      setBusy(null);
    }
  };
  return { busy, run };
}
