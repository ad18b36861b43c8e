// Dark enough for the tag's white text (WCAG AA).
export const STATUS_COLOR: Record<string, string> = {
  delivered: '#2e7d32',
  pending: '#1565c0',
  dead: '#c62828',
  active: '#2e7d32',
  disabled: 'default',
};
