// Endpoint body validation: types, bounds, required and unknown properties, multipart text casts.
import type { EndpointBodySchema } from '../../lib';
import { PayloadTooLargeError, ValidationError } from '../../lib';
import { bodyJsonSchema } from '../../lib/endpoints/body-schema';
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

  describe('e-mail and date properties, cast as a field of the type casts them', () => {
    const lookup: EndpointBodySchema = { properties: { mail: { type: 'email' }, since: { type: 'date' } } };
    const codesOf = (body: unknown, fromText = false): Record<string, string> => {
      try {
        validateEndpointBody(lookup, body, fromText);
      } catch (error) {
        return Object.fromEntries((error as ValidationError).errors!.map((e) => [e.field ?? '', e.code]));
      }
      throw new Error('expected a ValidationError');
    };

    it('trims and lower-cases an address, and reads a date to a Date', () => {
      expect(validateEndpointBody(lookup, { mail: ' Ann@Example.COM ', since: '2024-05-01T10:00:00+02:00' }, false)).toEqual({
        mail: 'ann@example.com',
        since: new Date('2024-05-01T08:00:00Z'),
      });
      expect(validateEndpointBody(lookup, { since: 1714521600000 }, false)).toEqual({ since: new Date('2024-05-01T00:00:00Z') });
    });

    it('reads a multipart form as text: epoch digits are a date, an empty input is absent', () => {
      expect(validateEndpointBody(lookup, { mail: 'A@B.CO', since: '1714521600000' }, true)).toEqual({ mail: 'a@b.co', since: new Date('2024-05-01T00:00:00Z') });
      expect(validateEndpointBody(lookup, { mail: '', since: '' }, true)).toEqual({});
    });

    it('refuses with the codes a record write gives', () => {
      expect(codesOf({ mail: 'not-an-email', since: '2024-02-30' })).toEqual({ mail: 'invalid_email', since: 'invalid_date' });
      expect(codesOf({ mail: 5, since: 'soon' })).toEqual({ mail: 'invalid_email', since: 'invalid_date' });
      // From JSON a digit string is no date, as in a record body.
      expect(codesOf({ since: '1' })).toEqual({ since: 'invalid_date' });
    });

    it('declares them in the JSON Schema as formatted strings', () => {
      expect(bodyJsonSchema(lookup).properties).toEqual({ mail: { type: 'string', format: 'email' }, since: { type: 'string', format: 'date-time' } });
    });
  });
});
