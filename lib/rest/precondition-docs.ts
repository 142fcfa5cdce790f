// How the OpenAPI document describes the precondition headers of record routes (If-Match, If-None-Match,
// ETag) and the answers they can give; the run-time side is preconditions.ts.
import type { HeaderParameter, RouteResponse } from '../http/route-table';

/** The If-Match parameter in the document. */
export function ifMatchHeader(required: boolean): HeaderParameter {
  return {
    name: 'If-Match',
    required,
    description: required
      ? 'The ETag of the record as you read it (or *): the write happens only if it is still current, else 412. Required here (428 without it).'
      : 'The ETag of the record as you read it (or *): the write happens only if it is still current, else 412.',
    schema: { type: 'string', maxLength: 255 },
  };
}

/** If-Match of a bulk write, in the document. */
export function bulkIfMatchHeader(required: boolean): HeaderParameter {
  return {
    name: 'If-Match',
    required,
    description: required ? 'Only *: required here (428 without it), so a bulk write is a choice.' : 'Only *, when sent.',
    schema: { type: 'string', const: '*' },
  };
}

/** If-None-Match on the reads that carry a validator, in the document, with the 304 it can give. */
export const IF_NONE_MATCH_HEADER: HeaderParameter = {
  name: 'If-None-Match',
  required: false,
  description: 'ETags you hold (or *): when one is current the answer is a 304 without a body, also with Cache-Control: no-cache.',
  schema: { type: 'string' },
};
export const NOT_MODIFIED: Record<number, RouteResponse> = { 304: { description: 'Not modified: If-None-Match names the current ETag' } };

/** The ETag a record answer carries, in the document. */
export const ETAG_HEADER: NonNullable<RouteResponse['headers']> = {
  ETag: { description: 'Strong validator of the record as you receive it; send it back in If-Match (writes) or If-None-Match (reads).', schema: { type: 'string' } },
};

/** The precondition answers a write of one record may give, in the document. */
export function preconditionResponses(required: boolean, bulk = false): Record<number, RouteResponse> {
  const responses: Record<number, RouteResponse> = bulk
    ? {}
    : { 412: { description: 'If-Match names no current ETag of the record: it changed since it was read; nothing was written' } };
  if (required) responses[428] = { description: 'If-Match is required here' };
  return responses;
}
