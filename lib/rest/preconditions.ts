// The precondition headers of record routes at run time: If-Match read once per write (a malformed one is a
// 400 naming it; a missing one a 428 where the collection requires it), and the strong ETag every record
// answer carries. How the document describes them: precondition-docs.ts.
import type { Request, Response } from 'express';
import { InvalidHeaderError, PreconditionRequiredError } from '../errors';
import { type IfMatch, jsonTag, parseIfMatch } from '../operations/precondition';
import { isRepresentation } from '../operations/write-answer';
import type { CollectionDescriptor } from '../schema/descriptors';
import { endJsonText } from '../http/json-answer';

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

/**
 * Sends a write's answer, tagged with the record's current ETag when it has one, and with no other ETag:
 * the answer is serialized once, and the tag is the hash of that text.
 */
export function sendWritten(res: Response, answer: object): void {
  const text = JSON.stringify(answer);
  if (isRepresentation(answer)) res.set('ETag', jsonTag(text));
  endJsonText(res, text);
}
