/** The console's languages; en-US is the reference every other must match key for key. */
export const LANGUAGES = ['en-US', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORED = 'rapport.language';

/** The user's choice if they made one, else the browser's first language we have (Chinese → zh-CN). */
export function detectLanguage(stored: string | null, browser: readonly string[]): Language {
  if (stored === 'en-US' || stored === 'zh-CN') return stored;
  for (const tag of browser) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en-US';
  }
  return 'en-US';
}

export function storedLanguage(): string | null {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
}

export function rememberLanguage(language: Language): void {
  try {
    localStorage.setItem(STORED, language);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
}
