// Field builders for records where every field is optional and may be null (contract §2).
import { type TSchema, Type } from '@sinclair/typebox';

/** A field that may be absent or null. */
export const Field = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** A closed object whose every property may be absent or null. */
export const Closed = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  Type.Object(
    Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Field(schema)])) as {
      [K in keyof P]: ReturnType<typeof Field<P[K]>>;
    },
    { additionalProperties: false, ...(description ? { description } : {}) },
  );

export const Str = (description?: string) => Type.String(description ? { description } : {});
export const Int = (description?: string) => Type.Integer(description ? { description } : {});
export const Num = (description?: string) => Type.Number(description ? { description } : {});
export const Strings = (description?: string) =>
  Type.Array(Type.String(), description ? { description } : {});

/** Record ids accepted on import (contract §1). */
export const RecordId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Record identifier' });
