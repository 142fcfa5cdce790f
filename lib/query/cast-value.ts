// Where and filter values, cast by the same table as body values (schema/value-cast.ts) but read as text:
// a URL carries `5`, `true` and dates as text, a JSON where or the local API as typed values. A value that
// is not of its field's type is a 400 naming the parameter path, with the code a body gets for it.
import type { FieldDescriptor } from '../schema/descriptors';
import { type CastResult, castFieldBound, castFieldValue } from '../schema/value-cast';
import { describeValue, rejectQuery } from './reject';

/**
 * Casts one value to the field's type (of one element, for arrays and hasMany), or throws a 400 such as
 * `where.views.gt: "abc" is not a number` (`invalid_type`; `invalid_date`, `invalid_id`, `invalid_email`
 * for those types, as in a body). `null` is returned as is when `allowNull`. Field limits (select options,
 * lengths, bounds) are not applied: a filter may ask about values a write would not store.
 */
export function castValue(field: FieldDescriptor, value: unknown, path: string, allowNull = false): unknown {
  if (value === null && allowNull) return null;
  return acceptOrReject(castFieldValue(field, value, 'text'), value, path);
}

/** A range bound (`gt`, `gte`, `lt`, `lte`): as castValue, but on an e-mail field any text, trimmed and lower-cased. */
export function castBound(field: FieldDescriptor, value: unknown, path: string): unknown {
  return acceptOrReject(castFieldBound(field, value, 'text'), value, path);
}

function acceptOrReject(cast: CastResult, value: unknown, path: string): unknown {
  if (!cast.ok) rejectQuery(path, `${describeValue(value)} is not ${cast.expected}`, cast.code);
  return cast.value;
}
