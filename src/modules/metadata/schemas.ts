import { Type } from '@sinclair/typebox';
import { Nullable, NullableString } from '../../http/schema-types.ts';

/** The interface's Customer metadata item (docs/interface.md §3), with `searchable` beyond it. */
export const MetadataItem = Type.Object({
  appId: Type.String(),
  name: Type.String(),
  type: Type.String(),
  title: Type.String(),
  isExt: Type.Boolean(),
  unique: Type.Boolean(),
  required: Type.Boolean(),
  visiable: Type.Boolean(),
  index: Type.Integer(),
  defaultValue: NullableString,
  optionValues: Nullable(Type.String({ description: 'JSON string [{"value","label"}]' })),
  readonly: Type.Integer(),
  searchable: Type.Optional(
    Type.Literal(true, {
      description: "beyond the interface, only when true: the customer list's keyword also looks in this field's values",
    }),
  ),
});
