import type { CustomerMetadataTable } from '../../db/index.ts';
import type { Selectable } from 'kysely';

/** One customer attribute of a project. The customers module validates against these, as a type. */
export type MetadataRow = Selectable<CustomerMetadataTable>;

export interface MetadataItem {
  appId: string;
  name: string;
  type: string;
  title: string;
  isExt: boolean;
  unique: boolean;
  required: boolean;
  visiable: boolean;
  index: number;
  defaultValue: string | null;
  optionValues: string | null;
  readonly: number;
  /** Beyond the interface, present only when true: the customer list's keyword also looks in this field's values. */
  searchable?: true;
}

export function toMetadataItem(r: MetadataRow): MetadataItem {
  const item = plainItem(r);
  if (r.searchable === 1) item.searchable = true;
  return item;
}

function plainItem(r: MetadataRow): MetadataItem {
  return {
    appId: r.app_id,
    name: r.name,
    type: r.type,
    title: r.title,
    isExt: r.is_ext === 1,
    unique: r.is_unique === 1,
    required: r.required === 1,
    visiable: r.visiable === 1,
    index: r.sort_index,
    defaultValue: r.default_value,
    optionValues: r.option_values,
    readonly: r.readonly,
  };
}
