import { Flex, theme } from 'antd';
import type { ReactNode } from 'react';

/**
 * A page's title (its one h1, drawn as antd's `Typography.Title` draws one, without its code) and its
 * actions, wrapping under the title on a narrow screen.
 */
export function PageHeader({ title, extra }: { title: ReactNode; extra?: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <Flex wrap gap={12} justify="space-between" align="center" style={{ marginBottom: 16 }}>
      <h1
        style={{
          margin: 0,
          fontSize: 22,
          fontWeight: token.fontWeightStrong,
          lineHeight: token.lineHeightHeading1,
          color: token.colorTextHeading,
        }}
      >
        {title}
      </h1>
      {extra ? (
        <Flex wrap gap={8}>
          {extra}
        </Flex>
      ) : null}
    </Flex>
  );
}
