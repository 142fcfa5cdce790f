// JSON body parsing (the parse phase) for routes declaring a JSON body: application/json (or +json) only, size-limited.
// A body of another type is a 415; parse and size failures become problems in the error handler.
import express, { type RequestHandler } from 'express';
import { MalformedBodyError, UnsupportedMediaTypeError } from '../errors';
import { nestedDeeperThan } from '../util/json-depth';
import type { RouteHook } from './lifecycle';

/** The media types a JSON body may declare. */
export const JSON_TYPES = ['application/json', 'application/*+json'];
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Deepest nesting a JSON body may have: far more than any record or message needs, far less than what
 * overflows the stack of code that walks a value recursively (JSON.stringify, the idempotency fingerprint).
 */
export const MAX_BODY_DEPTH = 64;

/** A 400 for a parsed body nested deeper than MAX_BODY_DEPTH, else undefined. */
export function tooDeep(body: unknown): MalformedBodyError | undefined {
  return nestedDeeperThan(body, MAX_BODY_DEPTH) ? new MalformedBodyError(`The body is nested deeper than ${MAX_BODY_DEPTH} levels.`) : undefined;
}

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Creates the body parser once per router, with the configured size limit. */
function createJsonBody(limit: string | number): RequestHandler {
  const parse = express.json({ limit, type: JSON_TYPES, strict: true });
  return (req, res, next) => {
    if (!WRITE_METHODS.has(req.method) || !hasBody(req)) next();
    else if (!req.is(JSON_TYPES)) next(new UnsupportedMediaTypeError());
    else parse(req, res, (error?: unknown) => next(error ?? tooDeep(req.body)));
  };
}

/**
 * The parse hook of JSON bodies, given only to routes that declare one: a GET never pays for it, and a route
 * whose feature reads its own body (`ownParser`) gets it untouched.
 */
export function jsonBodyFor(limit: string | number): RouteHook {
  const parse = createJsonBody(limit);
  return (route) => (route.body?.type === 'json' && !route.body.ownParser ? parse : undefined);
}
