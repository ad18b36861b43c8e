import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';

/** A page's title (its one h1) and its actions, wrapping under the title on a narrow screen. */
export function PageHeader({ title, extra }: { title: ReactNode; extra?: ReactNode }) {
  return (
    <Flex wrap gap={12} justify="space-between" align="center" style={{ marginBottom: 16 }}>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 22 }}>
        {title}
      </Typography.Title>
      {extra ? (
        <Flex wrap gap={8}>
          {extra}
        </Flex>
      ) : null}
    </Flex>
  );
}
