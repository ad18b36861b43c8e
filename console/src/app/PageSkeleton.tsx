import { Skeleton } from 'antd';

/** Shown while a page's chunk loads. */
export function PageSkeleton() {
  return (
    <div style={{ padding: 24 }}>
      <Skeleton active paragraph={{ rows: 6 }} />
    </div>
  );
}
