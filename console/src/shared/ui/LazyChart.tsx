import { Skeleton } from 'antd';
import { useEffect, useRef, useState } from 'react';

/** The chart kinds the console draws; each pulls in only its ECharts module. */
export interface BarChartData {
  categories: string[];
  values: number[];
}

/** An image of the chart (a data: URL) and its size in pixels, which sets its proportions. */
export interface ChartImage {
  url: string;
  width: number;
  height: number;
}

/**
 * Horizontal bars of a document's pages: beside each page's name its image (a data: URL) when there
 * is one, at each bar's end its text, in the tooltip its sentence, and one bar marked (its own colour
 * and text before the bar's).
 */
export interface PageBarsData extends BarChartData {
  images: (ChartImage | null)[];
  texts: string[];
  tooltips: string[];
  marked: { index: number; text: string } | null;
  /** The value axis's labels: ECharts' template, `{value}` and its unit. */
  axis: string;
}

/** A row's height: a bar at a readable thickness, or a page's image beside it. */
export function chartHeight(data: BarChartData | PageBarsData): number {
  const withImages = 'images' in data && data.images.some((i) => i !== null);
  return 48 + (withImages ? 52 : 36) * Math.max(1, data.categories.length);
}

/**
 * A horizontal bar chart drawn by Apache ECharts, which is loaded only when a chart is first shown
 * (echarts/core and the pieces used, in a chunk of their own), and disposed with the component.
 */
export function LazyChart({ data, label }: { data: BarChartData | PageBarsData; label: string }) {
  const height = chartHeight(data);
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
