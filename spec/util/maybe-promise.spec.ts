// thenMaybe: the next step runs at once on a ready value and only after settling on a promise or thenable.
import { isPromiseLike, thenMaybe } from '../../lib/util/maybe-promise';

describe('thenMaybe', () => {
  it('runs the next step synchronously on a ready value', () => {
    const result = thenMaybe(2, (n) => n * 3);
    expect(result).toBe(6);
    expect(isPromiseLike(result)).toBe(false);
  });

  it('waits for a promise or a thenable, and passes a rejection on', async () => {
    const later = thenMaybe(Promise.resolve(2), (n) => n * 3);
    expect(isPromiseLike(later)).toBe(true);
    await expect(later).resolves.toBe(6);
    const thenable = { then: (resolve: (n: number) => void) => resolve(5) } as unknown as PromiseLike<number>;
    await expect(thenMaybe(thenable, (n) => n + 1)).resolves.toBe(6);
    await expect(thenMaybe(Promise.reject(new Error('no')), () => 1)).rejects.toThrow('no');
  });

  it('lets a synchronous throw of the next step surface at once', () => {
    expect(() => thenMaybe(1, () => {
      throw new Error('denied');
    })).toThrow('denied');
  });
});
