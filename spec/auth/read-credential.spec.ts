// Which credential a request presents: X-API-Key, Bearer ck_ (API key), Bearer JWT, or none of the
// package's (no header, or another scheme such as Basic, which belongs to the host).
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
  ])('%p -> %p', (headers, expected) => {
    expect(readCredential(req(headers))).toEqual(expected);
  });
});
