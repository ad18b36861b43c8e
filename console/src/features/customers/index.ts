/**
 * The customers area's public entry: what the other areas (a customer's page, links, campaigns, the
 * live stream) use of it. They import it from here, never from the area's own files.
 */
export { customerQueries } from './api.ts';
export { CustomerFormDrawer } from './components/CustomerFormDrawer.tsx';
export { useFieldLabel, useOptionLabel } from './components/useFieldLabel.ts';
export { customerValue, formFields, parseOptions } from './form/registry.ts';
