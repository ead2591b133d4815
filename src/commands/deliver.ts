import { withJarCookies } from '../model/cookies.js';
import { prepareRequest, type PreparedRequest } from '../model/prepare.js';
import type { RequestSpec } from '../model/spec.js';
import type { Printer } from '../output/printer.js';

/**
 * One send-and-print for every command (the main command, --download, `sling exec`). `--offline`
 * is the same path stopped before the network: the request printed as the model would send it.
 */

/** The request as the model would send it: the cookie jar's cookies added, the body prepared (what --offline prints, --curl and `exec --to` write). */
export function wouldSend(spec: RequestSpec): Promise<PreparedRequest> {
  const jar = spec.settings.cookieJar;
  return prepareRequest(jar ? withJarCookies(spec, jar) : spec);
}

/** --offline: the request printed as it would be sent; nothing goes on the network. */
export async function printOffline(spec: RequestSpec, printer: Printer): Promise<void> {
  await printer.request(await wouldSend(spec));
  await printer.finish();
}
