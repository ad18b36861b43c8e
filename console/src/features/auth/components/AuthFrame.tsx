import { Card, Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { LanguageSwitch } from '../../../app/layout/LanguageSwitch.tsx';

/** The frame of the pages before signing in: a card in the middle, its title, the language switch. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', padding: 16, background: '#f5f7fa' }}>
      <Card style={{ width: '100%', maxWidth: 400 }}>
        <Flex vertical gap={16}>
          <Flex justify="space-between" align="center" wrap gap={8}>
            <Typography.Title level={1} style={{ margin: 0, fontSize: 22 }}>
              {title}
            </Typography.Title>
            <LanguageSwitch />
          </Flex>
          {children}
        </Flex>
      </Card>
    </main>
  );
}
