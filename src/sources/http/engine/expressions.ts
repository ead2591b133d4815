/**
 * The setup program of the realm where httpyac's assertion expressions run (`?? js`, `?? xpath`;
 * runs inside the script engine: see README.md of this folder): the library (lib.ts) and the XML
 * reader, nothing else. Its entry points, which an expression cannot replace:
 * `__expr_set(input)` hands the next expression its response (JSON), `__expr_take()` takes it
 * (script.ts's program for an expression calls it once), `__expr_xpath(body, expression, ns)` is
 * httpyac's `?? xpath EXPR` over the body as an XML document (assert-run.ts, expressionOf).
 */
import { installLibrary } from './lib.js';
import * as xml from './xml.js';

const host = globalThis.__sling_host!;
delete globalThis.__sling_host;
installLibrary(host);

Object.defineProperty(globalThis, '__expr_xpath', {
  value: (body: unknown, expression: unknown, ns: unknown) => {
    let doc: xml.XNode;
    try {
      doc = xml.parse(String(body));
    } catch (e) {
      throw new Error('the body is not XML: ' + (e as Error).message);
    }
    return xml.select(doc, expression, ns);
  },
  writable: false,
  configurable: false,
});
let input = 'null';
Object.defineProperty(globalThis, '__expr_set', {
  value: (t: string) => {
    input = t;
  },
  writable: false,
  configurable: false,
});
Object.defineProperty(globalThis, '__expr_take', {
  value: () => {
    const t = input;
    input = 'null';
    return t;
  },
  writable: false,
  configurable: false,
});
