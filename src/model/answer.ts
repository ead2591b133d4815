// What came of a response before a failure, carried on the CliError that reports the failure.
import type { HopInfo, ResponseHead } from './exchange.js';
import type { PreparedRequest } from './prepare.js';
import type { ParsedUrl } from './url.js';

/** What came of a response that then failed: its head, the bytes that arrived, and (when known) the request and URL it answered. */
export interface Answer {
  response: ResponseHead;
  body: Buffer;
  info: HopInfo;
  request?: PreparedRequest;
  url?: ParsedUrl;
  /** The bytes still carry a Content-Encoding that is to be undone (decodeCut). */
  encoded?: boolean;
}

// errors.ts is a base file and imports nothing of the model: the two fields of CliError that carry
// an answer are declared here, onto the class (a type-only merge; no code).
declare module '../errors.js' {
  interface CliError {
    /** What came of a response whose body failed (cut short, timed out): sling exec prints it before the error, as the main command does. */
    partial?: Answer;
    /** The last answer before a failure that is not about it (too many redirects): curl's -w reports it; nothing prints it. */
    lastAnswer?: Answer;
  }
}
