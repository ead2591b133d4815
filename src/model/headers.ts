// Header lookup over the flat [name, value, name, value, ...] lists that ResponseHead.rawHeaders
// and node:http's rawHeaders use.

/** A header of a flat [name, value, ...] list, by its lower-case name. */
export function headerIn(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}
