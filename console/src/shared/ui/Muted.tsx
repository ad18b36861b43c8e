import { theme } from 'antd';
import type { CSSProperties, HTMLAttributes, ReactNode } from 'react';

/**
 * Secondary text, as antd's `<Typography.Text type="secondary">` draws it (the theme's description
 * colour), without Typography's code (its ellipsis, copy and edit, their tooltip and text area): for
 * the first screens. `block`: a paragraph's box (a `div`) rather than a run of text.
 */
export function Muted({
  block = false,
  style,
  children,
  ...rest
}: { block?: boolean; style?: CSSProperties; children: ReactNode } & HTMLAttributes<HTMLElement> & { 'data-testid'?: string }) {
  const { token } = theme.useToken();
  const Tag = block ? 'div' : 'span';
  return (
    <Tag {...rest} style={{ color: token.colorTextDescription, ...style }}>
      {children}
    </Tag>
  );
}
