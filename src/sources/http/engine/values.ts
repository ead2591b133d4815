// Small helpers every realm's setup program uses on values from scripts (runs inside the script
// engine: see README.md of this folder).

/** A value as JSON text, or undefined when it has none (a cycle, a BigInt, a throwing toJSON). */
export const json = (v: unknown): string | undefined => {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
};

/** What was thrown, as text: an error's message, else the value as a string. */
export const message = (e: unknown): string => {
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  try {
    return String(e);
  } catch {
    return 'error';
  }
};
