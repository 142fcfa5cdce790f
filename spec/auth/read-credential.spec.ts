// Which credential a request presents: X-API-Key, Bearer ck_ (API key), Bearer JWT, or none of the
// package's (no header, or another scheme such as Basic, which belongs to the host); a value whose scheme
// starts with Bearer but is not `Bearer <token>` is malformed, still the package's.
import { readCredential } from '../../lib/auth/authenticate';

const req = (headers: Record<string, string>) => ({ headers });

describe('readCredential', () => {
  it.each<[Record<string, string>, ReturnType<typeof readCredential>]>([
    [{}, undefined],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, undefined],
    [{ authorization: 'Bearer eyJ.a.b' }, { kind: 'jwt', token: 'eyJ.a.b' }],
    [{ authorization: 'bearer eyJ.a.b' }, { kind: 'jwt', token: 'eyJ.a.b' }],
    [{ authorization: 'Bearer ck_abc' }, { kind: 'api-key', token: 'ck_abc' }],
    [{ authorization: 'Bearer' }, { kind: 'jwt', token: '' }],
    [{ authorization: 'Bearer    ' }, { kind: 'jwt', token: '' }],
    [{ 'x-api-key': 'ck_abc' }, { kind: 'api-key', token: 'ck_abc' }],
    [{ 'x-api-key': '' }, { kind: 'api-key', token: '' }],
    [{ 'x-api-key': 'ck_key', authorization: 'Bearer eyJ.a.b' }, { kind: 'api-key', token: 'ck_key' }],
    [{ authorization: 'Bearer\teyJ.a.b' }, { kind: 'jwt', token: 'eyJ.a.b' }],
    [{ authorization: 'Token eyJ.a.b' }, undefined],
    [{ authorization: 'JWT eyJ.a.b' }, undefined],
    [{ authorization: 'BearereyJ.a.b' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer:eyJ.a.b' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer: eyJ.a.b' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer\u00c2\u00a0eyJ.a.b' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer\u00a0eyJ.a.b' }, { kind: 'malformed' }],
    [{ authorization: 'Bearers eyJ.a.b' }, { kind: 'malformed' }],
  ])('%p -> %p', (headers, expected) => {
    expect(readCredential(req(headers))).toEqual(expected);
  });
});
