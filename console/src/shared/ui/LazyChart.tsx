import { Skeleton } from 'antd';
import { useEffect, useRef, useState } from 'react';

/** The chart kinds the console draws; each pulls in only its ECharts module. */
export interface BarChartData {
  categories: string[];
  values: number[];
}

/**
 * A horizontal bar chart drawn by Apache ECharts, which is loaded only when a chart is first shown
 * (echarts/core and the pieces used, in a chunk of their own), and disposed with the component.
 */
export function LazyChart({ data, label }: { data: BarChartData; label: string }) {
  // A bar per row at a readable thickness: one item is a short chart, not a block.
  const height = 48 + 36 * Math.max(1, data.categories.length);
  const ref = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let disposed = false;
    let dispose = () => {};
    void import('./echarts.ts').then(({ drawBarChart }) => {
      if (disposed || !ref.current) return;
      dispose = drawBarChart(ref.current, data);
      setReady(true);
    });
    return () => {
      disposed = true;
      dispose();
    };
  }, [data]);
  return (
    <div role="img" aria-label={label} style={{ position: 'relative', height }}>
      {!ready && <Skeleton active paragraph={{ rows: 3 }} />}
      <div ref={ref} style={{ position: 'absolute', inset: 0 }} />
    </div>
  );
}
