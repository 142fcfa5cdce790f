// Error -> problem+json mapping: statuses, codes, and no internals in a 500.
import mongoose from 'mongoose';
import { ConflictError, ContentError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib';
import { toProblem } from '../../lib/http/to-problem';

const prod = { development: false };

describe('toProblem', () => {
  it('maps typed errors with their status, code, details and headers', () => {
    const problem = toProblem(new ValidationError('bad', [{ field: 'title', message: 'title is required', code: 'required' }]), prod);
    expect(problem).toMatchObject({
      status: 400,
      unexpected: false,
      body: { type: 'urn:content-router:problem:validation_error', title: 'Validation failed', status: 400, detail: 'bad', code: 'validation_error', errors: [{ field: 'title', code: 'required' }] },
    });
    expect(toProblem(new UnauthorizedError(), { ...prod, challenge: 'Bearer' }).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(toProblem(new NotFoundError(), prod).status).toBe(404);
    expect(toProblem(new ConflictError('email'), prod).body.detail).toBe('A record with this email already exists.');
  });

  it("gives every 401 the router's challenge, and none when the router knows no scheme", () => {
    const challenge = 'Bearer, sessionCookie';
    expect(toProblem(new UnauthorizedError(), { ...prod, challenge }).headers).toEqual({ 'WWW-Authenticate': challenge });
    // A host's own 401 (a hook, a custom endpoint) is challenged the same way.
    expect(toProblem(new ContentError(401, 'session_expired', 'Unauthorized', 'Log in again.'), { ...prod, challenge }).headers).toEqual({ 'WWW-Authenticate': challenge });
    expect(toProblem(new UnauthorizedError(), prod).headers).toEqual({});
    expect(toProblem(new NotFoundError(), { ...prod, challenge }).headers).toEqual({});
  });

  it.each([
    ['entity.parse.failed', 400, 'malformed_body'],
    ['entity.too.large', 413, 'payload_too_large'],
    ['charset.unsupported', 415, 'unsupported_media_type'],
  ])('maps body-parser %s', (type, status, code) => {
    const problem = toProblem(Object.assign(new Error('x'), { type }), prod);
    expect(problem.status).toBe(status);
    expect(problem.body.code).toBe(code);
  });

  it('maps a Mongoose validation error without echoing values', () => {
    const error = new mongoose.Error.ValidationError();
    error.addError('title', new mongoose.Error.ValidatorError({ path: 'title', message: 'secret-value is bad', type: 'required' }));
    const problem = toProblem(error, prod);
    expect(problem.status).toBe(400);
    expect(JSON.stringify(problem.body)).not.toContain('secret-value');
    expect(problem.body.errors).toEqual([{ field: 'title', message: 'title is invalid', code: 'required' }]);
  });

  it('maps an unreachable database to 503', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    expect(toProblem(error, prod)).toMatchObject({ status: 503, unexpected: true, headers: { 'Retry-After': '5' } });
  });

  it('maps subclasses of the driver\'s network errors (a pool cleared by a network error) to 503', () => {
    const { MongoNetworkError } = mongoose.mongo;
    class PoolClearedOnNetworkError extends MongoNetworkError {
      override get name(): string {
        return 'PoolClearedOnNetworkError';
      }
    }
    const problem = toProblem(new PoolClearedOnNetworkError('Connection to 127.0.0.1:27017 interrupted due to server monitor timeout'), prod);
    expect(problem.status).toBe(503);
    expect(problem.body.code).toBe('service_unavailable');
    expect(JSON.stringify(problem.body)).not.toContain('127.0.0.1');
  });

  it.each([
    ['a pool cleared after another operation lost its connection', Object.assign(new Error('Connection pool for h:1 was cleared'), { name: 'MongoPoolClearedError' })],
    ['a network error (by class)', new mongoose.mongo.MongoNetworkError('read ECONNRESET')],
    ['a raw socket error the driver did not wrap', Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET', syscall: 'write', errno: -104 })],
    ['a server shutting down', Object.assign(new Error('interrupted at shutdown'), { name: 'MongoServerError', code: 11600 })],
    ['a primary stepping down', Object.assign(new Error('not primary'), { name: 'MongoServerError', code: 10107 })],
    ['a batch interrupted at shutdown', Object.assign(new Error('bulk'), { name: 'MongoBulkWriteError', code: 11600, writeErrors: [{ code: 11600, index: 3 }] })],
    ['a write concern error at shutdown', Object.assign(new Error('wc'), { name: 'MongoWriteConcernError', writeConcernError: { code: 91 } })],
    ['a closed client', Object.assign(new Error('closed'), { name: 'MongoClientClosedError' })],
    // What insertMany throws when the server goes away mid-batch (seen in the outage load test).
    ['a batch cut by the network', new mongoose.mongo.MongoBulkWriteError(new mongoose.mongo.MongoNetworkError('connect ECONNREFUSED 127.0.0.1:39533'), {} as never)],
    ['an error caused by a network error', new Error('wrapped', { cause: new mongoose.mongo.MongoNetworkError('read ECONNRESET') })],
  ])('maps %s to 503 with Retry-After', (_what, error) => {
    expect(toProblem(error, prod)).toMatchObject({ status: 503, headers: { 'Retry-After': '5' }, body: { code: 'service_unavailable' } });
  });

  it.each([
    ['a duplicate key', Object.assign(new Error('E11000'), { name: 'MongoServerError', code: 11000 })],
    ['a socket code without a syscall (not a system error)', Object.assign(new Error('x'), { code: 'ECONNRESET' })],
    ['an operation failure', Object.assign(new Error('bad'), { name: 'MongoServerError', code: 2 })],
    ['a socket code in the message of an error that is not the driver\'s', new Error('client said ECONNRESET')],
  ])('does not map %s to 503', (_what, error) => {
    expect(toProblem(error, prod).status).not.toBe(503);
  });

  it('hides internals of unexpected errors outside development', () => {
    const problem = toProblem(new Error('password=hunter2 at /srv/app.js:1'), prod);
    expect(problem.status).toBe(500);
    expect(problem.unexpected).toBe(true);
    expect(problem.body.detail).toBe('An unexpected error occurred.');
    expect(toProblem(new Error('boom'), { development: true }).body.detail).toContain('boom');
  });
});
