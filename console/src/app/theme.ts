import type { ThemeConfig } from 'antd';

/** The console's antd theme, made once: `motion` off for users who prefer reduced motion. */
export function consoleTheme(motion: boolean): ThemeConfig {
  return {
    token: {
      colorPrimary: '#1565c0',
      // antd's own hover and active shades of it are too light for white text (about 4.1:1).
      colorPrimaryHover: '#1976d2',
      colorPrimaryActive: '#0d47a1',
      colorLink: '#1565c0',
      colorLinkHover: '#1976d2',
      colorLinkActive: '#0d47a1',
      colorError: '#c62828',
      colorTextSecondary: '#595959',
      colorTextDescription: '#595959',
      colorTextPlaceholder: '#707070',
      colorTextTertiary: '#595959',
      motion,
    },
    components: {
      // A project's pages, Today, Tasks and Sequences among them, fit one menu bar at 1440 px (the
      // server's administrators' fifteen entries too): antd hides what does not fit behind "…", in hidden
      // entries a keyboard still reaches.
      Menu: { itemPaddingInline: 8, iconMarginInlineEnd: 6 },
    },
  };
}
