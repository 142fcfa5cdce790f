// A collation MongoDB refuses fails every query of its collection (each a 500) and the model's index
// builds: the start-up check must refuse what the server refuses. MongoDB takes a locale ID only as ICU
// spells it (`en_US`, never `en-US` or `EN`, and no locale ICU would fall back from), a variant only by
// one of ICU's collation type names, `backwards` only above strength 1, and `caseFirst` upper or lower
// only where case is compared (strength 3 or more, or caseLevel).
import type { CollectionConfig, ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function problemsOf(collation: unknown): string[] {
  return validateConfig({ db, collections: [{ slug: 'people', fields: { name: { type: 'text' } }, collation } as CollectionConfig] } as ContentConfig);
}

it.each(['fr', 'en_US', 'en_US_POSIX', 'fr_CA', 'zh_Hant', 'bs_Cyrl', 'de@collation=phonebook', 'zh@collation=unihan', 'es@collation=traditional', 'ar@collation=compat', 'simple'])(
  'accepts the locale %s',
  (locale) => {
    expect(problemsOf({ locale })).toEqual([]);
  },
);

it.each<[string, string]>([
  ['en-US', 'collections[0].collation.locale: MongoDB takes locale IDs as ICU spells them: "en_US", not "en-US"'],
  ['EN', 'collections[0].collation.locale: MongoDB takes locale IDs as ICU spells them: "en", not "EN"'],
  ['en_ZZ', 'collections[0].collation.locale: unknown locale "en_ZZ"'],
  ['de@collation=phonebok', 'collections[0].collation.locale: unknown collation variant "phonebok"'],
  ['de@calendar=gregorian', 'collections[0].collation.locale: only a collation variant may follow "@" ("de@collation=phonebook")'],
])('refuses the locale %s', (locale, problem) => {
  expect(problemsOf({ locale })).toEqual([problem]);
});

it('refuses backwards at strength 1, where MongoDB does', () => {
  expect(problemsOf({ locale: 'fr', strength: 1, backwards: true })).toEqual(['collections[0].collation.backwards: MongoDB refuses backwards at strength 1 (it orders secondary differences)']);
  expect(problemsOf({ locale: 'fr', strength: 2, backwards: true })).toEqual([]);
  expect(problemsOf({ locale: 'fr', strength: 1, backwards: false })).toEqual([]);
});

it('refuses caseFirst upper or lower where case is not compared, where MongoDB does', () => {
  const problem = 'collections[0].collation.caseFirst: MongoDB refuses "upper" or "lower" unless strength is 3 or more or caseLevel is true';
  expect(problemsOf({ locale: 'fr', strength: 2, caseFirst: 'upper' })).toEqual([problem]);
  expect(problemsOf({ locale: 'fr', strength: 1, caseFirst: 'lower', caseLevel: false })).toEqual([problem]);
  expect(problemsOf({ locale: 'fr', strength: 2, caseFirst: 'upper', caseLevel: true })).toEqual([]);
  expect(problemsOf({ locale: 'fr', caseFirst: 'upper' })).toEqual([]);
  expect(problemsOf({ locale: 'fr', strength: 1, caseFirst: 'off' })).toEqual([]);
});
