/**
 * The customers area's public entry: what the other areas (a customer's page, links, campaigns, the
 * live stream) use of it. They import it from here, never from the area's own files.
 */
import { lazy } from 'react';

export { customerQueries } from './api.ts';
/** The customer form (antd's form and its controls): loaded when first shown, never with the area's queries. */
export const CustomerFormDrawer = lazy(() =>
  import('./components/CustomerFormDrawer.tsx').then((m) => ({ default: m.CustomerFormDrawer })),
);
export { useFieldLabel, useOptionLabel } from './components/useFieldLabel.ts';
export { customerValue, formFields, parseOptions } from './form/registry.ts';
