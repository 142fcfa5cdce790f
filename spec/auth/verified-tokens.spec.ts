// The memo of verified access tokens: hits until the token's own exp (whole seconds, as jsonwebtoken
// counts), bounded with the least recently used dropped first, never keeping over-long tokens.
import type { AccessClaims } from '../../lib/auth/access-token';
import { createVerifiedTokens } from '../../lib/auth/verified-tokens';

const claims = (sub: string): AccessClaims => ({ sub, col: 'users', sid: 's', typ: 'access' });

describe('createVerifiedTokens', () => {
  it('answers a remembered token until its exp second, then forgets it', () => {
    let ms = 1_000_000;
    const tokens = createVerifiedTokens(() => ms, 10);
    tokens.set('t1', claims('a'), 1002);
    expect(tokens.get('t1')).toEqual(claims('a'));
    ms = 1_001_999;
    expect(tokens.get('t1')).toEqual(claims('a'));
    ms = 1_002_000;
    expect(tokens.get('t1')).toBeUndefined();
    ms = 1_000_000;
    expect(tokens.get('t1')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('is unknown for a token never set', () => {
    expect(createVerifiedTokens(() => 0).get('never')).toBeUndefined();
  });

  it('keeps at most `max` tokens, dropping the least recently used', () => {
    const tokens = createVerifiedTokens(() => 0, 2);
    tokens.set('a', claims('a'), 10);
    tokens.set('b', claims('b'), 10);
    expect(tokens.get('a')).toEqual(claims('a'));
    tokens.set('c', claims('c'), 10);
    expect(tokens.size).toBe(2);
    expect(tokens.get('b')).toBeUndefined();
    expect(tokens.get('a')).toEqual(claims('a'));
    expect(tokens.get('c')).toEqual(claims('c'));
  });

  it('does not keep over-long tokens, and hands out claims no caller can change', () => {
    const tokens = createVerifiedTokens(() => 0, 10);
    tokens.set('x'.repeat(2049), claims('long'), 10);
    expect(tokens.size).toBe(0);
    const original = claims('a');
    tokens.set('a', original, 10);
    original.sub = 'changed';
    const kept = tokens.get('a');
    expect(kept?.sub).toBe('a');
    expect(Object.isFrozen(kept)).toBe(true);
  });
});
