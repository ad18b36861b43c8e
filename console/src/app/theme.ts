import type { ThemeConfig } from 'antd';

/**
 * The console's antd theme. `npm run build` writes antd's styles for it (motion on) to a stylesheet
 * the page links (vite.config.ts), so the first render does not compute them; with motion off (a user
 * who prefers reduced motion) they are computed in the page as before.
 */
export function consoleTheme(motion: boolean): ThemeConfig {
  return {
    token: {
      colorPrimary: '#1565c0',
      colorLink: '#1565c0',
      colorError: '#c62828',
      colorTextSecondary: '#595959',
      colorTextDescription: '#595959',
      colorTextPlaceholder: '#707070',
      colorTextTertiary: '#595959',
      motion,
    },
  };
}
