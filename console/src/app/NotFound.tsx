import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

/** A page the console does not have: the way back is the project's customers inside a project, else the projects. */
export function NotFound() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const appId = /^\/p\/([^/]+)(\/|$)/.exec(pathname)?.[1];
  return (
    <Result
      status="404"
      title={<h1 style={{ fontSize: 'inherit', margin: 0 }}>{t('common.errors.notFound')}</h1>}
      extra={
        appId ? (
          <Link to={`/p/${appId}/customers`}>{t('common.errors.backToCustomers')}</Link>
        ) : (
          <Link to="/">{t('common.errors.backToProjects')}</Link>
        )
      }
    />
  );
}
