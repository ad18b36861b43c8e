import { Radio } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../shared/i18n/language.ts';
import { useLanguage } from '../useLanguage.ts';

/**
 * The language switch: each language named in itself. A language's texts load when it is chosen (the
 * switch applies once they are in), asked for already when the switch is pointed at or focused.
 */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const [language, setLanguage] = useLanguage();
  const prefetch = () => void i18n.loadLanguages([...LANGUAGES]);
  return (
    <Radio.Group
      onMouseEnter={prefetch}
      onFocus={prefetch}
      aria-label={t('common.header.language')}
      optionType="button"
      size="small"
      value={language}
      onChange={(e) => setLanguage(e.target.value as typeof language)}
      options={LANGUAGES.map((l) => ({ value: l, label: t(`common.languages.${l}`) }))}
    />
  );
}
