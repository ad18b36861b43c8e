/** The composer's fields that show the server's failures. */
export type Field = 'title' | 'html' | 'recipients' | 'sendAt';

/** Where the API names a field in a failure: the composer's field that shows it. */
export function fieldOf(code: string): Field | undefined {
  if (code.startsWith('title_')) return 'title';
  if (code.startsWith('html_')) return 'html';
  if (code.startsWith('send_at_')) return 'sendAt';
  if (code.startsWith('customer_') || code.startsWith('group_') || code === 'no_recipients') return 'recipients';
  return undefined;
}
