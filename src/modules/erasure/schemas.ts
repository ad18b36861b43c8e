import { Type } from '@sinclair/typebox';

export const ErasurePath = Type.Object({ appId: Type.String({ maxLength: 64 }), customerId: Type.String({ maxLength: 64 }) });

export const ErasureResult = Type.Object({
  id: Type.String(),
  appId: Type.String(),
  customerIds: Type.Array(Type.String(), { description: 'the customer and those merged into it' }),
  erased: Type.Record(Type.String(), Type.Integer(), { description: 'rows removed (directed links: unlinked) per table' }),
});
