import { BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import type { BarChartData } from './LazyChart.tsx';

echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

/** Draws the chart into `element`; returns what disposes of it. */
export function drawBarChart(element: HTMLElement, data: BarChartData): () => void {
  const chart = echarts.init(element);
  chart.setOption({
    animation: false,
    grid: { left: 8, right: 24, top: 8, bottom: 24, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: { type: 'category', data: data.categories, inverse: true, axisLabel: { width: 120, overflow: 'truncate' } },
    series: [{ type: 'bar', data: data.values, barMaxWidth: 20, itemStyle: { color: '#1565c0' } }],
  });
  const resize = () => chart.resize();
  window.addEventListener('resize', resize);
  return () => {
    window.removeEventListener('resize', resize);
    chart.dispose();
  };
}
