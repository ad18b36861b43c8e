import { Alert } from 'antd';
import { errorDetail, errorText } from '../../../shared/i18n/errors.ts';

/** A failure from the server, in the user's language, with its detail under it. */
export function Failure({ error }: { error: unknown }) {
  return <Alert type="error" showIcon style={{ marginBottom: 16 }} message={errorText(error)} description={errorDetail(error)} />;
}
