import { createHash } from 'node:crypto';
import { StyleProvider, createCache, extractStyle } from '@ant-design/cssinjs';
import * as antd from 'antd';
import { type ReactElement, createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import type { Plugin } from 'vite';
import { consoleTheme } from '../src/app/theme.ts';

/**
 * The antd components whose styles go in the stylesheet: those of the layout, the customer list and a
 * customer's page, and those they render inside (a table's pagination, spinner and empty state).
 * Others (the date picker, upload, the grid's columns, ...) are computed on the page that first shows
 * them, as are components that draw into a portal (dialogs, drawers, popovers, tooltips), which render
 * nothing here.
 */
const COMPONENTS: Record<string, (c: never) => ReactElement> = {
  Alert: (C) => h(C, { message: 'x' }),
  App: (C) => h(C),
  Avatar: (C) => h(C),
  Badge: (C) => h(C, { count: 1 }),
  Button: (C) => h(C),
  Card: (C) => h(C, { title: 'x' }),
  Checkbox: (C) => h(C),
  Descriptions: (C) => h(C, { items: [{ key: 'x', label: 'x', children: 'x' }] }),
  Divider: (C) => h(C),
  Dropdown: (C) => h(C, { menu: { items: [] } }, h('span')),
  Empty: (C) => h(C),
  Flex: (C) => h(C),
  Form: (C) => h(C),
  Input: (C) => h(C),
  Layout: (C) => h(C),
  List: (C) => h(C),
  Menu: (C) => h(C, { items: [] }),
  Pagination: (C) => h(C, { total: 100 }),
  Radio: (C) => h(C),
  Select: (C) => h(C),
  Skeleton: (C) => h(C),
  Space: (C) => h(C),
  Spin: (C) => h(C),
  Statistic: (C) => h(C),
  Table: (C) => h(C),
  Tabs: (C) => h(C, { items: [] }),
  Tag: (C) => h(C),
  Timeline: (C) => h(C),
  Typography: (C) => h(C),
};

/** antd's styles for the console's theme (motion on), ending with antd's map of the styles it holds. */
export function antdStyles(): string {
  const all = antd as unknown as Record<string, never>;
  const cache = createCache();
  const nodes = Object.entries(COMPONENTS).map(([name, render]) => h('div', { key: name }, render(all[name] as never)));
  renderToString(h(StyleProvider, { cache }, h(antd.ConfigProvider, { theme: consoleTheme(true) }, nodes)));
  return extractStyle(cache, true);
}

/**
 * antd's styles, written at build time to a stylesheet the page links. The stylesheet ends with
 * antd's map of the styles it holds, so antd's first render takes them from there instead of
 * computing and injecting each component's styles in the browser, which was the larger part of the
 * first render on a slow phone. A user who prefers reduced motion has another theme, whose styles are
 * computed in the page as before.
 */
export function antdStylesheet(): Plugin {
  let fileName = '';
  let css = '';
  return {
    name: 'rapport:antd-stylesheet',
    apply: 'build',
    buildStart() {
      css = antdStyles();
      fileName = `assets/antd-${createHash('sha256').update(css).digest('hex').slice(0, 8)}.css`;
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: css });
    },
    transformIndexHtml: {
      order: 'post',
      handler: () => [{ tag: 'link', attrs: { rel: 'stylesheet', href: `/console/${fileName}` }, injectTo: 'head-prepend' }],
    },
  };
}
