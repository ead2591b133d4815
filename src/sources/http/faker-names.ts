/**
 * The JetBrains HTTP Client's Faker variables, `{{$random.CATEGORY.METHOD}}` (its names are Java
 * Faker's: `$random.address.city`, `$random.name.firstName`, `$random.internet.emailAddress`), each
 * with the @faker-js/faker call that makes its value (faker.ts, loaded only by a run that uses one).
 * Kept apart from faker.ts so that a file is checked against the names without loading faker.
 * A call is `module.method` of @faker-js/faker, with an optional argument (JSON).
 */
export const FAKER_NAMES: Record<string, Record<string, string>> = {
  address: {
    buildingNumber: 'location.buildingNumber',
    city: 'location.city',
    cityName: 'location.city',
    country: 'location.country',
    countryCode: 'location.countryCode',
    county: 'location.county',
    fullAddress: '*fullAddress',
    latitude: 'location.latitude',
    longitude: 'location.longitude',
    postcode: 'location.zipCode',
    secondaryAddress: 'location.secondaryAddress',
    state: 'location.state',
    stateAbbr: 'location.state {"abbreviated":true}',
    streetAddress: 'location.streetAddress',
    streetName: 'location.street',
    timeZone: 'location.timeZone',
    zipCode: 'location.zipCode',
  },
  name: {
    firstName: 'person.firstName',
    lastName: 'person.lastName',
    fullName: 'person.fullName',
    name: 'person.fullName',
    nameWithMiddle: '*nameWithMiddle',
    prefix: 'person.prefix',
    suffix: 'person.suffix',
    title: 'person.jobTitle',
    username: 'internet.username',
  },
  internet: {
    domainName: 'internet.domainName',
    domainSuffix: 'internet.domainSuffix',
    domainWord: 'internet.domainWord',
    email: 'internet.email',
    emailAddress: 'internet.email',
    ipV4Address: 'internet.ipv4',
    ipV6Address: 'internet.ipv6',
    macAddress: 'internet.mac',
    password: 'internet.password',
    safeEmailAddress: 'internet.exampleEmail',
    slug: 'lorem.slug',
    url: 'internet.url',
    userAgent: 'internet.userAgent',
    username: 'internet.username',
    uuid: 'string.uuid',
  },
  phoneNumber: {
    cellPhone: 'phone.number',
    phoneNumber: 'phone.number',
  },
  company: {
    bs: 'company.buzzPhrase',
    buzzword: 'company.buzzNoun',
    catchPhrase: 'company.catchPhrase',
    industry: 'commerce.department',
    name: 'company.name',
    suffix: '*companySuffix',
    url: 'internet.url',
  },
  lorem: {
    character: 'string.alpha {"casing":"lower"}',
    characters: 'lorem.word',
    paragraph: 'lorem.paragraph',
    sentence: 'lorem.sentence',
    word: 'lorem.word',
    words: 'lorem.words',
  },
  commerce: {
    color: 'color.human',
    department: 'commerce.department',
    material: 'commerce.productMaterial',
    price: 'commerce.price',
    productName: 'commerce.productName',
    promotionCode: '*promotionCode',
  },
  color: { name: 'color.human', hex: 'color.rgb' },
  book: { author: 'book.author', genre: 'book.genre', publisher: 'book.publisher', title: 'book.title' },
  finance: {
    bic: 'finance.bic',
    creditCard: 'finance.creditCardNumber',
    iban: 'finance.iban',
  },
  business: { creditCardNumber: 'finance.creditCardNumber', creditCardType: 'finance.creditCardIssuer', creditCardExpiry: '*creditCardExpiry' },
  number: {
    digit: 'number.int {"min":0,"max":9}',
    randomDigit: 'number.int {"min":0,"max":9}',
    randomDigitNotZero: 'number.int {"min":1,"max":9}',
    randomNumber: 'number.int {"max":2147483647}',
  },
  bool: { bool: 'datatype.boolean' },
  date: { birthday: 'date.birthdate', future: 'date.future', past: 'date.past' },
  animal: { name: 'animal.type' },
  app: { name: 'commerce.productName', version: 'system.semver' },
  music: { genre: 'music.genre', instrument: '*instrument' },
  food: { dish: 'food.dish', fruit: 'food.fruit', ingredient: 'food.ingredient', spice: 'food.spice', vegetable: 'food.vegetable' },
  job: { field: 'person.jobArea', position: 'person.jobType', title: 'person.jobTitle' },
  currency: { code: 'finance.currencyCode', name: 'finance.currencyName' },
  file: { extension: 'system.fileExt', fileName: 'system.fileName', mimeType: 'system.mimeType' },
  code: { isbn10: 'commerce.isbn {"variant":10}', isbn13: 'commerce.isbn {"variant":13}' },
};

/** The faker call of `$random.CATEGORY.METHOD`, or why there is none (a sentence naming it). */
export function fakerCall(name: string): { call: string } | { problem: string } {
  const m = /^random\.(\w+)\.(\w+)$/.exec(name);
  const category = m && Object.hasOwn(FAKER_NAMES, m[1]!) ? FAKER_NAMES[m[1]!] : undefined;
  if (m && category === undefined) {
    return { problem: `{{$${name}}}: sling has no Faker category '${m[1]}' (it has ${Object.keys(FAKER_NAMES).join(', ')})` };
  }
  const call = m && Object.hasOwn(category!, m[2]!) ? category![m[2]!] : undefined;
  if (call === undefined) return { problem: `{{$${name}}}: the Faker category '${m?.[1]}' has no '${m?.[2]}' in sling (it has ${Object.keys(category ?? {}).join(', ')})` };
  return { call };
}
