// The memo of parsed read queries: bounded in entries and characters, least recently used out first,
// only what `keep` accepts kept, and kept values frozen so no request can change another's query.
import { Types } from 'mongoose';
import { createQueryMemo } from '../../lib/rest/query-memo';

describe('query memo', () => {
  it('parses once per route and query string', () => {
    const memo = createQueryMemo();
    const parse = jest.fn(() => ({ limit: 10 }));
    const first = memo.get('posts.list', 'limit=10', parse);
    const second = memo.get('posts.list', 'limit=10', parse);
    expect(second).toBe(first);
    expect(parse).toHaveBeenCalledTimes(1);
    memo.get('posts.get', 'limit=10', parse);
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('keeps nothing when the parse throws', () => {
    const memo = createQueryMemo();
    const parse = jest.fn(() => {
      throw new Error('bad query');
    });
    expect(() => memo.get('posts.list', 'limit=x', parse)).toThrow('bad query');
    expect(() => memo.get('posts.list', 'limit=x', parse)).toThrow('bad query');
    expect(parse).toHaveBeenCalledTimes(2);
    expect(memo.size).toBe(0);
  });

  it('drops the least recently used entry past the entry bound', () => {
    const memo = createQueryMemo({ entries: 2, chars: 10_000 });
    const parse = jest.fn((n: number) => ({ n }));
    memo.get('r', 'a', () => parse(1));
    memo.get('r', 'b', () => parse(2));
    memo.get('r', 'a', () => parse(1)); // a is now the most recent
    memo.get('r', 'c', () => parse(3)); // evicts b
    expect(memo.size).toBe(2);
    memo.get('r', 'a', () => parse(1));
    expect(parse).toHaveBeenCalledTimes(3);
    memo.get('r', 'b', () => parse(2));
    expect(parse).toHaveBeenCalledTimes(4);
  });

  it('stays within its character bound and never keeps a very long query string', () => {
    const memo = createQueryMemo({ entries: 1000, chars: 100 });
    for (let i = 0; i < 50; i++) memo.get('r', `q=${i}`.padEnd(20, 'x'), () => ({ i }));
    // Each key is "r?" + 20 characters: at most four fit in 100 characters.
    expect(memo.size).toBe(4);
    const long = 'a'.repeat(5000);
    const parse = jest.fn(() => ({}));
    memo.get('r', long, parse);
    memo.get('r', long, parse);
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('does not keep what keep() declines', () => {
    const memo = createQueryMemo();
    const parse = jest.fn(() => ({ cursor: { after: 1 } }));
    memo.get('r', 'cursor=abc', parse, (q) => !q.cursor);
    memo.get('r', 'cursor=abc', parse, (q) => !q.cursor);
    expect(parse).toHaveBeenCalledTimes(2);
    expect(memo.size).toBe(0);
  });

  it('freezes plain objects and arrays it keeps, and leaves ObjectIds and dates usable', () => {
    const memo = createQueryMemo();
    const id = new Types.ObjectId();
    const kept = memo.get('r', 'x=1', () => ({ sort: [{ field: 'title' }], where: { ids: [id], at: new Date(0) } }));
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept.sort)).toBe(true);
    expect(Object.isFrozen(kept.sort[0])).toBe(true);
    expect(() => {
      (kept.sort as unknown[]).push({ field: 'views' });
    }).toThrow(TypeError);
    expect(Object.isFrozen(kept.where.ids[0])).toBe(false);
    expect(kept.where.ids[0].toHexString()).toBe(id.toHexString());
    expect(kept.where.at.toISOString()).toBe('1970-01-01T00:00:00.000Z');
  });
});
