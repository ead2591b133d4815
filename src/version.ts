/**
 * sling's version (set by scripts/build.mjs) and the User-Agent it sends. A module of its own:
 * the start of every command needs them, and they should not bring the main command's request
 * builder along (`sling exec` never uses it).
 */
declare const SLING_VERSION: string;
export const VERSION = typeof SLING_VERSION === 'string' ? SLING_VERSION : '0.0.0-dev';
export const USER_AGENT = `sling/${VERSION}`;
