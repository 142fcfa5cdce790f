// Endpoint body validation: types, bounds, required and unknown properties, multipart text casts.
import type { EndpointBodySchema } from '../../lib';
import { PayloadTooLargeError, ValidationError } from '../../lib';
import { toEndpointFile, validateEndpointBody } from '../../lib/endpoints/validate-body';

const schema: EndpointBodySchema = {
  properties: {
    name: { type: 'string', minLength: 2 },
    age: { type: 'number', minimum: 0, maximum: 150, integer: true },
    ok: { type: 'boolean' },
    doc: { type: 'file', maxSize: 4 },
  },
  required: ['name'],
};

function errorsOf(body: unknown, fromText = false): Record<string, string> {
  try {
    validateEndpointBody(schema, body, fromText);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return Object.fromEntries((error as ValidationError).errors!.map((e) => [e.field ?? '', e.code]));
  }
  throw new Error('expected a ValidationError');
}

const file = (size: number) => toEndpointFile({ originalName: 'a.txt', mimeType: 'text/plain', size, buffer: Buffer.alloc(size) });

describe('validateEndpointBody', () => {
  it('keeps declared properties and drops nulls of optional ones', () => {
    const doc = file(3);
    expect(validateEndpointBody(schema, { name: 'Ann', age: 3, ok: false, doc }, false)).toEqual({ name: 'Ann', age: 3, ok: false, doc });
    expect(validateEndpointBody(schema, { name: 'Ann', age: null }, false)).toEqual({ name: 'Ann' });
  });

  it('reports every bad property at once', () => {
    expect(errorsOf({ age: -1, ok: 'true', doc: { size: 1 }, extra: 1 })).toEqual({
      extra: 'unknown_field',
      name: 'required',
      age: 'too_small',
      ok: 'invalid_type',
      doc: 'invalid_type',
    });
    expect(errorsOf({ name: 'A', age: 2.5 })).toEqual({ name: 'too_short', age: 'invalid_type' });
    expect(errorsOf({ name: 'Ann', age: 151 })).toEqual({ age: 'too_big' });
    expect(errorsOf({ name: null })).toEqual({ name: 'required' });
  });

  it('refuses a body that is not an object', () => {
    expect(errorsOf([1])).toEqual({ '': 'invalid_body' });
    expect(errorsOf('text')).toEqual({ '': 'invalid_body' });
  });

  it('casts multipart text, and reads empty inputs as absent', () => {
    expect(validateEndpointBody(schema, { name: 'Ann', age: '42', ok: 'true' }, true)).toEqual({ name: 'Ann', age: 42, ok: true });
    expect(validateEndpointBody(schema, { name: 'Ann', age: '', ok: '' }, true)).toEqual({ name: 'Ann' });
    expect(errorsOf({ name: 'Ann', age: '4x', ok: 'yes' }, true)).toEqual({ age: 'invalid_type', ok: 'invalid_type' });
    // JSON numbers stay strict: a string is not a number there.
    expect(errorsOf({ name: 'Ann', age: '42' })).toEqual({ age: 'invalid_type' });
  });

  it('is a 413 for a file above its own maxSize', () => {
    expect(() => validateEndpointBody(schema, { name: 'Ann', doc: file(5) }, true)).toThrow(PayloadTooLargeError);
  });
});
