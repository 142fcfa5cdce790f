// The per-client connection cap alone: who a client is (its user, else its address with IPv6 grouped by
// /56 as the rate limiter groups it), the count per client, and releases that count once each.
import type { Request } from 'express';
import { TooManyConnectionsError } from '../../lib';
import { connectionOwner, createConnectionLimit } from '../../lib/realtime/connection-limit';

const from = (ip: string) => ({ ip }) as Request;
const ann = { id: 'ann' };

describe('connectionOwner', () => {
  it('is the user when signed in, else the address, IPv6 by /56', () => {
    expect(connectionOwner(from('203.0.113.1'), ann)).toBe(connectionOwner(from('198.51.100.7'), ann));
    expect(connectionOwner(from('203.0.113.1'), null)).not.toBe(connectionOwner(from('203.0.113.2'), null));
    expect(connectionOwner(from('2001:db8:0:1::1'), null)).toBe(connectionOwner(from('2001:db8:0:1:ffff::2'), null));
    expect(connectionOwner(from('2001:db8:0:100::1'), null)).not.toBe(connectionOwner(from('2001:db8:0:1::1'), null));
    // A user is never counted with an address, whatever the strings.
    expect(connectionOwner(from('ann'), null)).not.toBe(connectionOwner(from('x'), { id: 'ann' }));
  });
});

describe('createConnectionLimit', () => {
  it('refuses past the cap per client, and counts a place free again once released (once)', () => {
    const limit = createConnectionLimit(2);
    const first = limit.acquire(from('203.0.113.1'), null);
    limit.acquire(from('203.0.113.1'), null);
    expect(() => limit.acquire(from('203.0.113.1'), null)).toThrow(TooManyConnectionsError);
    limit.acquire(from('203.0.113.1'), ann);
    limit.acquire(from('203.0.113.2'), null);
    first();
    first();
    limit.acquire(from('203.0.113.1'), null);
    expect(() => limit.acquire(from('203.0.113.1'), null)).toThrow(TooManyConnectionsError);
  });
});
