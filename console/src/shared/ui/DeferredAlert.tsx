import type { AlertProps } from 'antd';
import { Suspense, lazy } from 'react';

const Alert = lazy(() => import('./AlertChunk.ts').then((m) => ({ default: m.Alert })));

/**
 * antd's Alert, whose code loads when one is first shown: the banners of a page (an import or a bulk
 * action under way, a selection, the server's address) are shown now and then, and not in its first
 * load. Nothing stands in for it during the few milliseconds it takes.
 */
export function DeferredAlert(props: AlertProps) {
  return (
    <Suspense fallback={null}>
      <Alert {...props} />
    </Suspense>
  );
}
