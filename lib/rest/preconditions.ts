// The precondition headers of record routes: If-Match read once per write (a malformed one is a 400 naming
// it; a missing one a 428 where the collection requires it), and the strong ETag every record answer carries.
import type { Request, Response } from 'express';
import { InvalidHeaderError, PreconditionRequiredError } from '../errors';
import { type IfMatch, parseIfMatch, representationTag } from '../operations/precondition';
import { etagOfAnswer } from '../operations/write-answer';
import type { CollectionDescriptor } from '../schema/descriptors';
import { endJson, sendReadJson } from '../http/json-answer';
import type { HeaderParameter, RouteResponse } from '../http/route-table';

/** The If-Match of a write of one record (or global); a 428 without one where `descriptor` requires it. */
export function ifMatchOf(req: Request, descriptor: Pick<CollectionDescriptor, 'requireIfMatch'>): IfMatch | undefined {
  const value = req.headers['if-match'];
  if (value === undefined) {
    if (descriptor.requireIfMatch) throw new PreconditionRequiredError();
    return undefined;
  }
  return parseIfMatch(value);
}

/**
 * A bulk write has no one record to compare a tag with: If-Match takes only `*` there, which is also what a
 * requireIfMatch collection asks of it (428 without), so that writing many records at once is a choice.
 */
export function checkBulkIfMatch(req: Request, descriptor: Pick<CollectionDescriptor, 'requireIfMatch'>): void {
  const ifMatch = ifMatchOf(req, descriptor);
  if (ifMatch !== undefined && ifMatch !== '*') throw new InvalidHeaderError('If-Match', 'a bulk write takes only * (each record has its own ETag).');
}

/** Sends a record read with GET, tagged. */
export function sendRead(res: Response, record: object): void {
  res.set('ETag', representationTag(record));
  sendReadJson(res, record);
}

/** Sends a write's answer, tagged with the record's current ETag when it has one, and with no other ETag. */
export function sendWritten(res: Response, answer: object): void {
  const tag = etagOfAnswer(answer);
  if (tag) res.set('ETag', tag);
  endJson(res, answer);
}

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
