import { DownOutlined } from '@ant-design/icons';
import { theme } from 'antd';
import type { CSSProperties, ReactNode, RefObject } from 'react';
import { useEffect, useRef, useState } from 'react';
import type { LiveSelect } from './LiveSelect.ts';

export interface DeferredSelectProps {
  'aria-label': string;
  value?: string;
  options: { value: string; label: ReactNode }[];
  onChange: (value: string) => void;
  style?: CSSProperties;
  placeholder?: ReactNode;
  loading?: boolean;
}

type Live = typeof LiveSelect;
let live: Live | undefined;
let loading: Promise<Live> | undefined;
/** antd's select, fetched once for every deferred select of the console. */
function loadLive(): Promise<Live> {
  loading ??= import('./LiveSelect.ts').then(
    (m) => (live = m.LiveSelect),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

const OPEN_KEYS = new Set(['Enter', ' ', 'ArrowDown', 'ArrowUp']);

/**
 * antd's select, whose code (the select, its virtual list, its dropdown: some 20 KB) is fetched when a
 * person first opens one, not with the page: until then a look-alike drawn with the theme's tokens
 * shows the value, is a combobox to assistive technology and the keyboard, and asks for the code when
 * pointed at or focused. A click, or Enter, Space or an arrow key on it, puts antd's select in its
 * place, open and focused. It carries the class name antd's select has (`ant-select`), so what finds a
 * select on the page finds it either way.
 */
export function DeferredSelect(props: DeferredSelectProps) {
  const [opened, setOpened] = useState(false);
  const [, loaded] = useState(0);
  const box = useRef<HTMLSpanElement>(null);
  // Whether antd's select opens focused when it takes the look-alike's place, decided once, then.
  const here = useRef<boolean | null>(null);
  useEffect(() => {
    if (!opened || live) return;
    let gone = false;
    loadLive().then(
      () => !gone && loaded((n) => n + 1),
      () => !gone && setOpened(false),
    );
    return () => {
      gone = true;
    };
  }, [opened]);
  if (opened && live) {
    const Select = live;
    // Opened by this person just now: open and focused, unless the focus has moved on meanwhile.
    here.current ??= document.activeElement === box.current || document.activeElement === document.body;
    return <Select {...props} defaultOpen={here.current} autoFocus={here.current} />;
  }
  return <Stand {...props} box={box} onOpen={() => setOpened(true)} />;
}

/** The look-alike: antd's outlined select of the default size, at rest. */
function Stand({ box, onOpen, ...props }: DeferredSelectProps & { box: RefObject<HTMLSpanElement | null>; onOpen: () => void }) {
  const { token } = theme.useToken();
  const [hover, setHover] = useState(false);
  const [focus, setFocus] = useState(false);
  const option = props.options.find((o) => o.value === props.value);
  const shown = option ? option.label : props.value;
  const prefetch = () => void loadLive().catch(() => undefined);
  return (
    <div
      className="ant-select"
      style={{
        position: 'relative',
        display: 'inline-flex',
        boxSizing: 'border-box',
        height: token.controlHeight,
        cursor: 'pointer',
        fontSize: token.fontSize,
        color: token.colorText,
        background: token.colorBgContainer,
        border: `${token.lineWidth}px ${token.lineType} ${focus ? token.colorPrimary : hover ? token.colorPrimaryHover : token.colorBorder}`,
        borderRadius: token.borderRadius,
        boxShadow: focus ? `0 0 0 ${token.controlOutlineWidth}px ${token.controlOutline}` : undefined,
        padding: `0 ${token.paddingSM - token.lineWidth}px`,
        ...props.style,
      }}
      onMouseEnter={() => {
        setHover(true);
        prefetch();
      }}
      onMouseLeave={() => setHover(false)}
      onTouchStart={prefetch}
      onClick={() => {
        // A click anywhere on the box (its padding, its arrow) takes the focus to it, as on antd's.
        box.current?.focus();
        onOpen();
      }}
    >
      <span
        ref={box}
        role="combobox"
        tabIndex={0}
        aria-label={props['aria-label']}
        aria-expanded={false}
        aria-haspopup="listbox"
        onFocus={() => {
          setFocus(true);
          prefetch();
        }}
        onBlur={() => setFocus(false)}
        onKeyDown={(e) => {
          if (!OPEN_KEYS.has(e.key)) return;
          e.preventDefault();
          onOpen();
        }}
        style={{
          flex: 1,
          minWidth: 0,
          outline: 'none',
          lineHeight: `${token.controlHeight - 2 * token.lineWidth}px`,
          paddingInlineEnd: 18,
          overflow: 'hidden',
          whiteSpace: 'nowrap',
          textOverflow: 'ellipsis',
          color: shown === undefined ? token.colorTextPlaceholder : undefined,
        }}
      >
        {shown ?? props.placeholder}
      </span>
      <DownOutlined
        aria-hidden
        style={{
          position: 'absolute',
          top: '50%',
          insetInlineEnd: token.paddingSM - token.lineWidth,
          marginTop: -token.fontSizeIcon / 2,
          fontSize: token.fontSizeIcon,
          color: token.colorTextQuaternary,
          pointerEvents: 'none',
        }}
      />
    </div>
  );
}
