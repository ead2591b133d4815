import { getPublicSuffix } from 'tldts';

/**
 * The Public Suffix List (the tldts package, bundled into a chunk of its own, about 190 kB): what
 * cookies.ts checks a cookie's Domain attribute against. Loaded only by a run that stores a cookie.
 */
export function publicSuffix(domain: string): string | null {
  // The private section too (github.io, blogspot.com): browsers and libpsl refuse cookies for those.
  return getPublicSuffix(domain, { allowPrivateDomains: true, extractHostname: false });
}
