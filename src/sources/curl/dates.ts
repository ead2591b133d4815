const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * The dates curl's -z understands (curl_getdate): RFC 1123/850/asctime forms, `YYYYMMDD`, and
 * `YYYYMMDD HH:MM:SS`, in GMT unless a zone is given. undefined: not a date (then it is a file).
 */
export function parseCurlDate(text: string): number | undefined {
  const t = text.trim();
  let m = /^(\d{4})(\d{2})(\d{2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(t);
  if (m) return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  m = /^(?:[a-z]+,?\s+)?(\d{1,2})[\s-]([a-z]{3})[a-z]*[\s-](\d{2,4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s+(GMT|UTC|Z|[+-]\d{4}))?$/i.exec(t);
  if (m && MONTHS.includes(m[2]!.toLowerCase())) {
    let year = Number(m[3]);
    if (year < 100) year += year < 70 ? 2000 : 1900;
    let ms = Date.UTC(year, MONTHS.indexOf(m[2]!.toLowerCase()), Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
    const zone = m[7];
    if (zone && /^[+-]\d{4}$/.test(zone)) {
      const sign = zone[0] === '-' ? -1 : 1;
      ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3))) * 60000;
    }
    return ms;
  }
  m = /^[a-z]+\s+([a-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})$/i.exec(t);
  if (m && MONTHS.includes(m[1]!.toLowerCase())) return Date.UTC(Number(m[6]), MONTHS.indexOf(m[1]!.toLowerCase()), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}
