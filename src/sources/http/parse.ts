import type { ParsedHttp } from './ast.js';
import { beforeRequest } from './parse/before-request.js';
import { body } from './parse/body.js';
import { replayCarried } from './parse/comments.js';
import { afterCurl } from './parse/curl-command.js';
import { endRequest } from './parse/end-request.js';
import { afterHandlers } from './parse/handlers.js';
import { headers } from './parse/headers.js';
import { freshPending, Pass, untouched } from './parse/pass.js';
import { startsRequest } from './parse/request-line.js';
import { yacGlobals } from './parse/scripts.js';

/**
 * The .http / .rest parser: one pass over the lines, a small state machine per request block
 * (before the request line → headers → body → response handlers). Pure: text in, data out; a
 * malformed file throws HttpParseError (line and column), syntax of other runners (httpyac script
 * blocks, WebSocket/gRPC requests, Lua handlers, ...) becomes a warning naming the line and is
 * never sent. httpyac `??` assertions are kept for their request (asserts.ts).
 *
 * The grammar is the union of the JetBrains HTTP Client spec and the VS Code REST Client README,
 * plus the httpyac habits the corpus shows (requests separated by a blank line only, recorded
 * responses after a request, `/* *\/` comments).
 *
 * This file is the driver: the pass over the lines, `###` blocks, and which handler reads a line.
 * The handlers, one file per kind of line, are in parse/ (pass.ts holds the state they share).
 */
export function parseHttp(text: string): ParsedHttp {
  return new Parser(text).run();
}

class Parser extends Pass {
  run(): ParsedHttp {
    const { lines } = this;
    for (this.i = 0; this.i < lines.length; this.i++) {
      const line = lines[this.i]!;
      // In a file of indented requests (pasted from a Markdown list), an indented `###` too.
      if (line.startsWith('###') || (this.reqIndent !== 0 && line.trimStart().startsWith('###'))) {
        endRequest(this);
        this.blockStart = this.i + 1;
        this.newBlock(line.trimStart().slice(3).trim());
        continue;
      }
      this.readLine(line);
    }
    endRequest(this);
    if (!this.blockHasRequest) yacGlobals(this);
    if (this.pending.pre.length) this.warn(this.pending.pre[0]!.line, 1, 'a pre-request script with no request after it: not run');
    if (this.pending.asserts.length) this.warn(this.pending.asserts[0]!.line, 1, 'an httpyac assertion with no request after it: not checked');
    return this.out;
  }

  readLine(line: string) {
    switch (this.state) {
      case 'pre':
        beforeRequest(this, line);
        break;
      case 'headers':
        headers(this, line);
        break;
      case 'body':
        body(this, line);
        break;
      case 'after':
        afterHandlers(this, line);
        break;
      case 'curl':
        afterCurl(this, line);
        break;
      case 'skip':
        // A request of another protocol, or a recorded response: skipped up to the next request.
        if (line.trim() === '') this.blankBefore = true;
        else if (this.blankBefore && startsRequest(line)) this.startNextRequest(line);
        break;
    }
  }

  private newBlock(title: string) {
    if (!this.blockHasRequest) yacGlobals(this);
    // `# @name x` and `< {% %}` placed before `###` belong to the next request (vp.http, kulala),
    // also when they come after a request, at the end of its block.
    if (this.blockHasRequest && !untouched(this.pending)) this.pending = freshPending();
    this.title = title || undefined;
    this.blockHasRequest = false;
    this.state = 'pre';
    replayCarried(this);
  }

  startNextRequest(line: string) {
    const comments = this.leadComments;
    this.leadComments = undefined;
    endRequest(this, comments);
    this.blockHasRequest = false;
    this.state = 'pre';
    replayCarried(this);
    if (comments) {
      // The comment lines between the two requests belong to the next one (`# @name second`).
      const at = this.i;
      for (const k of comments) {
        this.i = k;
        beforeRequest(this, this.lines[k]!);
      }
      this.i = at;
    }
    beforeRequest(this, line);
  }
}

export { HttpParseError } from './parse/pass.js';
export { isFileVar } from './parse/variables.js';
export { startsRequest };
export type { Diagnostic } from './ast.js';
