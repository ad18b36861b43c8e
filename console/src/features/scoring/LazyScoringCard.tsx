import { Card, Skeleton } from 'antd';
import { Suspense, lazy } from 'react';

// The card, its form and its texts load when the settings page shows it.
const Chunk = lazy(() => import('./components/ScoringCard.tsx').then((m) => ({ default: m.ScoringCard })));

/** The scoring card, loaded with its texts; a skeleton meanwhile. */
export function LazyScoringCard(props: { appId: string; manages: boolean }) {
  return (
    <Suspense
      fallback={
        <Card size="small">
          <Skeleton active paragraph={{ rows: 6 }} />
        </Card>
      }
    >
      <Chunk {...props} />
    </Suspense>
  );
}
