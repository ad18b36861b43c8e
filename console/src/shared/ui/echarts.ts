import { BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { BarChartData, PageBarsData } from './LazyChart.tsx';

echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

const BAR = '#1565c0';
// Dark enough for white text beside the blue (WCAG AA), and told apart without colour by its text.
const MARKED = '#b45309';

/**
 * The options of page bars: each page's name and image on the axis, texts at the bars' ends, one bar
 * marked. On a narrow chart (a phone) the images are smaller, the texts go above the bars and the
 * value axis has no labels (each bar says its value), so the bars keep their room.
 */
function pageBarsOptions(data: PageBarsData, narrow: boolean) {
  const rich: Record<string, object> = { name: { fontSize: 12, color: '#333', padding: [0, 6, 0, 0] } };
  data.images.forEach((image, i) => {
    // Its size given, the label is laid out before the image is decoded, as wide as it will be.
    const height = narrow ? 30 : 40;
    const width = image === null || image.height === 0 ? 0 : Math.round((height * image.width) / image.height);
    if (image !== null) rich[`img${i}`] = { height, width, backgroundColor: { image: image.url }, borderColor: '#ccc', borderWidth: 1 };
  });
  const marked = data.marked;
  return {
    animation: false,
    grid: { left: 8, right: narrow ? 16 : 112, top: narrow ? 16 : 8, bottom: narrow ? 8 : 24, containLabel: true },
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (params: { dataIndex: number }[]) => data.tooltips[params[0]?.dataIndex ?? 0] ?? '',
    },
    xAxis: { type: 'value', minInterval: 1, axisLabel: { show: !narrow, formatter: data.axis } },
    yAxis: {
      type: 'category',
      data: data.categories,
      inverse: true,
      axisLabel: {
        formatter: (value: string, i: number) => `{name|${value}}${data.images[i] ? `{img${i}|}` : ''}`,
        rich,
      },
    },
    series: [
      {
        type: 'bar',
        barMaxWidth: narrow ? 14 : 20,
        data: data.values.map((value, i) => ({ value, itemStyle: { color: marked?.index === i ? MARKED : BAR } })),
        label: {
          show: true,
          // Above the bar, from its start, on a phone: the whole text fits whatever the bar's length.
          position: narrow ? [0, -16] : 'right',
          color: '#333',
          fontSize: 12,
          formatter: (p: { dataIndex: number }) =>
            marked?.index === p.dataIndex ? `{marked|${marked.text}} ${data.texts[p.dataIndex] ?? ''}` : (data.texts[p.dataIndex] ?? ''),
          rich: { marked: { color: MARKED, fontWeight: 'bold', fontSize: 12 } },
        },
      },
    ],
  };
}

/** Below this width (px) a chart is drawn for a phone. */
const NARROW = 560;

/** Draws the chart into `element`; returns what disposes of it. */
export function drawBarChart(element: HTMLElement, data: BarChartData | PageBarsData): () => void {
  const chart = echarts.init(element);
  chart.setOption(
    'texts' in data
      ? pageBarsOptions(data, element.clientWidth < NARROW)
      : {
          animation: false,
          grid: { left: 8, right: 24, top: 8, bottom: 24, containLabel: true },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'value', minInterval: 1 },
          yAxis: { type: 'category', data: data.categories, inverse: true, axisLabel: { width: 120, overflow: 'truncate' } },
          series: [{ type: 'bar', data: data.values, barMaxWidth: 20, itemStyle: { color: BAR } }],
        },
  );
  const resize = () => chart.resize();
  window.addEventListener('resize', resize);
  return () => {
    window.removeEventListener('resize', resize);
    chart.dispose();
  };
}
