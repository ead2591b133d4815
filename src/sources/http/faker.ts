import { faker } from '@faker-js/faker/locale/en';
import { fakerCall } from './faker-names.js';

/**
 * Values of the JetBrains Faker variables (`{{$random.address.city}}`), made by @faker-js/faker's
 * English locale. This module is its own chunk of dist/, loaded (dynamic.ts: loadFaker) only by a
 * run whose files use such a variable: faker's data is most of half a megabyte.
 */
type Fn = (arg?: unknown) => unknown;

const COMPOSED: Record<string, () => string> = {
  fullAddress: () => `${faker.location.streetAddress()}, ${faker.location.city()}, ${faker.location.state({ abbreviated: true })} ${faker.location.zipCode()}`,
  nameWithMiddle: () => `${faker.person.firstName()} ${faker.person.middleName()} ${faker.person.lastName()}`,
  companySuffix: () => faker.helpers.arrayElement(['Inc', 'LLC', 'Group', 'and Sons', 'Ltd']),
  promotionCode: () => `${faker.word.adjective()}${faker.word.noun()}${faker.number.int({ min: 10, max: 99 })}`.replace(/^./, (c) => c.toUpperCase()),
  creditCardExpiry: () => {
    const d = faker.date.future({ years: 5 });
    return `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCFullYear()).slice(2)}`;
  },
  instrument: () => faker.helpers.arrayElement(['Piano', 'Guitar', 'Violin', 'Drums', 'Cello', 'Flute', 'Trumpet', 'Saxophone', 'Clarinet', 'Harp']),
};

/** The value of `$random.CATEGORY.METHOD` as text; undefined when sling has no such name. */
export function fakerValue(name: string): string | undefined {
  const found = fakerCall(name);
  if (!('call' in found)) return undefined;
  const [path, arg] = found.call.split(' ', 2) as [string, string | undefined];
  let value: unknown;
  if (path.startsWith('*')) value = COMPOSED[path.slice(1)]!();
  else {
    const [module, method] = path.split('.') as [string, string];
    // Called on its module: faker's methods read `this`.
    const on = (faker as unknown as Record<string, Record<string, Fn>>)[module]!;
    value = arg === undefined ? on[method]!() : on[method]!(JSON.parse(arg));
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(' ');
  return String(value);
}
