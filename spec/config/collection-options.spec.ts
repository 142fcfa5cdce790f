// Collection and field options checked at start-up: `collation` (how text sorts and compares), `maxItems`
// (the most items a list field holds), `existing` and `buildIndexes` (fronting a collection the host already
// has); and the README's one-line shapes, which must name every option the validator accepts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectionConfig, ContentConfig } from '../../lib';
import { describeCollection } from '../../lib/schema/describe-collection';
import { COLLECTION_KEYS, FIELD_KEYS, GLOBAL_KEYS, validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function problemsOf(collection: Partial<CollectionConfig>): string[] {
  return validateConfig({ db, collections: [{ slug: 'people', fields: { name: { type: 'text' } }, ...collection } as CollectionConfig] } as ContentConfig);
}

describe('collation', () => {
  it('accepts a locale with MongoDB collation options', () => {
    expect(problemsOf({ collation: { locale: 'fr' } })).toEqual([]);
    expect(problemsOf({ collation: { locale: 'en_US', strength: 3, caseFirst: 'upper', numericOrdering: true, alternate: 'shifted', maxVariable: 'punct', backwards: false, caseLevel: false, normalization: true } })).toEqual([]);
    expect(problemsOf({ collation: { locale: 'de@collation=phonebook' } })).toEqual([]);
    expect(problemsOf({ collation: { locale: 'simple' } })).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'fr', 'collections[0].collation: must be an object { locale, ... }'],
    ['no locale', {}, 'collections[0].collation.locale: required'],
    ['an unknown locale', { locale: 'xx_YY_nope' }, 'collections[0].collation.locale: unknown locale "xx_YY_nope"'],
    ['a strength out of range', { locale: 'fr', strength: 6 }, 'collections[0].collation.strength: must be 1, 2, 3, 4 or 5'],
    ['a bad caseFirst', { locale: 'fr', caseFirst: 'title' }, 'collections[0].collation.caseFirst: must be "upper", "lower" or "off"'],
    ['a non-boolean flag', { locale: 'fr', numericOrdering: 'yes' }, 'collections[0].collation.numericOrdering: must be a boolean'],
    ['a bad alternate', { locale: 'fr', alternate: 'ignore' }, 'collections[0].collation.alternate: must be "non-ignorable" or "shifted"'],
    ['a bad maxVariable', { locale: 'fr', maxVariable: 'all' }, 'collections[0].collation.maxVariable: must be "punct" or "space"'],
    ['an unknown option', { locale: 'fr', accents: false }, 'collections[0].collation.accents: unknown option'],
    ['options beside simple', { locale: 'simple', strength: 2 }, 'collections[0].collation: the "simple" locale (code-point order) takes no other option'],
  ])('refuses %s', (_name, collation, problem) => {
    expect(problemsOf({ collation: collation as never })).toContain(problem);
  });

  it('is part of the collection descriptor, frozen', () => {
    const descriptor = describeCollection({ slug: 'people', fields: { name: { type: 'text' } }, collation: { locale: 'fr', strength: 2 } });
    expect(descriptor.collation).toEqual({ locale: 'fr', strength: 2 });
    expect(Object.isFrozen(descriptor.collation)).toBe(true);
    expect(describeCollection({ slug: 'people', fields: {} }).collation).toBeUndefined();
  });
});

describe('maxItems', () => {
  it('defaults to 1000 on every list field, and takes a limit of its own', () => {
    const descriptor = describeCollection({
      slug: 'people',
      fields: {
        tags: { type: 'array' },
        roles: { type: 'select', options: ['a', 'b'], hasMany: true },
        friends: { type: 'relationship', relationTo: 'people', hasMany: true, maxItems: 50 },
        photos: { type: 'upload', hasMany: true, maxItems: 5 },
        name: { type: 'text' },
        role: { type: 'select', options: ['a'] },
      },
    });
    expect(descriptor.fields.tags.maxItems).toBe(1000);
    expect(descriptor.fields.roles.maxItems).toBe(1000);
    expect(descriptor.fields.friends.maxItems).toBe(50);
    expect(descriptor.fields.photos.maxItems).toBe(5);
    expect(descriptor.fields.name.maxItems).toBeUndefined();
    expect(descriptor.fields.role.maxItems).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['zero', { type: 'array', maxItems: 0 }, 'collections[0].fields.list.maxItems: must be an integer from 1 to 100000'],
    ['a fraction', { type: 'array', maxItems: 2.5 }, 'collections[0].fields.list.maxItems: must be an integer from 1 to 100000'],
    ['too many', { type: 'array', maxItems: 100_001 }, 'collections[0].fields.list.maxItems: must be an integer from 1 to 100000'],
    ['a single select', { type: 'select', options: ['a'], maxItems: 3 }, 'collections[0].fields.list.maxItems: only a list field (array, or hasMany) takes maxItems'],
    ['a text field', { type: 'text', maxItems: 3 }, 'collections[0].fields.list.maxItems: unknown option'],
  ])('refuses %s', (_name, field, problem) => {
    expect(problemsOf({ fields: { list: field as never } })).toContain(problem);
  });
});

describe('existing and buildIndexes', () => {
  it('are booleans; buildIndexes defaults to true, and to false on an existing collection', () => {
    expect(problemsOf({ existing: true })).toEqual([]);
    expect(problemsOf({ existing: true, buildIndexes: true })).toEqual([]);
    expect(problemsOf({ existing: 'yes' as never })).toContain('collections[0].existing: must be a boolean');
    expect(problemsOf({ buildIndexes: 1 as never })).toContain('collections[0].buildIndexes: must be a boolean');
    expect(describeCollection({ slug: 'a', fields: {} })).toMatchObject({ existing: false, buildIndexes: true });
    expect(describeCollection({ slug: 'a', fields: {}, existing: true })).toMatchObject({ existing: true, buildIndexes: false });
    expect(describeCollection({ slug: 'a', fields: {}, existing: true, buildIndexes: true })).toMatchObject({ existing: true, buildIndexes: true });
  });
});

describe("the README's one-line shapes", () => {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const shapeAfter = (intro: string): string[] => {
    const start = readme.indexOf(intro);
    expect(start).toBeGreaterThan(-1);
    // The object after the intro, its nested objects (`access?: { read, update }`) left out.
    const rest = readme.slice(start + intro.length);
    let depth = 0;
    let shape = '';
    for (const char of rest.slice(rest.indexOf('{'))) {
      if (char === '}' && --depth === 0) break;
      if (depth === 1 && char !== '{') shape += char;
      if (char === '{') depth += 1;
    }
    return shape.split(',').map((part) => part.trim().split(/[?:\s]/)[0]).filter(Boolean);
  };

  it('name every option a collection takes', () => {
    expect(shapeAfter('A collection is ').sort()).toEqual([...COLLECTION_KEYS].sort());
  });

  it('name every option a global takes', () => {
    expect(shapeAfter('| `globals[]` | `[]` | ').sort()).toEqual([...GLOBAL_KEYS].sort());
  });

  it('name every option a field takes', () => {
    const known = new Set(['type', ...Object.values(FIELD_KEYS).flat(), 'required', 'unique', 'hidden', 'default', 'index', 'hooks', 'access']);
    expect(shapeAfter('| `fields` | required | `name -> ').sort()).toEqual([...known].sort());
  });
});
