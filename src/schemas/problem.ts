// The problem document of RFC 9457 with this service's stable `code` (contract §5).
import { Type } from '@sinclair/typebox';
import { Problems } from '../errors.js';

export const Problem = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Union(Object.keys(Problems).map((code) => Type.Literal(code))),
    request_id: Type.String(),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    additionalProperties: true,
    description: 'application/problem+json; extra members such as `matches` or `accepted` depend on the code',
  },
);
