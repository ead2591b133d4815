import { closeSync } from 'node:fs';
import { type Creation, FileTooLargeError, makeDirs, occupied, openToWrite, readLimited, SETTINGS_FILE_LIMIT, writeToFile } from '../../files.js';
import { dirname, resolve } from 'node:path';
import { exitCodeForStatus } from '../../exit.js';
import type { AfterResult, Completed } from '../../model/exec.js';
import { headerIn, headerInPairs } from '../../model/headers.js';
import type { Operation } from '../../sources/curl/args.js';
import type { Transfer } from '../../sources/curl/plan.js';
import { formatCurlUrl, type CurlUrl } from '../../sources/curl/url.js';
import { type BodyPlan, type CurlOutput, type FailedTransfer, globName, isStdout, type OutputContext } from '../../sources/curl/outputs.js';
import { formatUrl } from '../../model/url.js';
import { now } from '../../clock.js';
import { fileProblem, TimeoutError, TooManyRedirectsError } from '../../errors.js';
import { nameFromContentDisposition, sanitizeFileName } from '../../transport/filename.js';

/**
 * What curl does with a response once it has arrived, for the curl commands `sling exec` runs (a
 * curl file, a curl line in a .http file): -o/-O/-J files (with --output-dir, --create-dirs,
 * --no-clobber), -D header dumps, --etag-save, the shell's `> file`, -w lines, -c cookie jars, and
 * the exit codes (-f/--fail-with-body as 4 or 5, as --check-status would give; curl's own numbers
 * for -w's %{exitcode}). The curl front end (sources/curl) reads the options and calls these
 * through its CurlOutput interface: it writes no file itself.
 */
export const curlOutput: CurlOutput = {
  planBody,
  afterTransfer,
  afterFailedTransfer,
  exitCode: curlExitCode,
  openStdout: (path, append) => closeSync(openToWrite(path, append ? 'append' : 'replace')),
  writeFile: (path, data, how) => writeToFile(path, data, how),
};

function headText(r: Completed['response']): string {
  // HTTP/2 has no reason phrase: curl writes `HTTP/2 200 ` (with the blank).
  let out = r.httpVersion === '2' ? `HTTP/2 ${r.status} \r\n` : `HTTP/${r.httpVersion} ${r.status}${r.reason ? ' ' + r.reason : ''}\r\n`;
  for (let i = 0; i < r.rawHeaders.length; i += 2) out += `${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}\r\n`;
  return out + '\r\n';
}

/** -D and -i: every hop's head, as curl writes them after -L (redirects, a digest challenge), then the final one. */
function allHeads(c: Omit<Completed, 'body'>): string {
  return (c.info.earlierHeads ?? []).map(headText).join('') + headText(c.response);
}

/**
 * -O: the last segment of the URL path, as it is in the URL (curl 7.88 does not decode `%20`);
 * -J: Content-Disposition's `filename` when there is one (`fromHeader`), read by the reader every
 * command uses (transport/filename.ts) and made a safe bare name there: no folders, no dot files,
 * no control characters (curl 7.88 strips only the folders).
 */
function remoteName(url: CurlUrl, c: Omit<Completed, 'body'>, op: Operation): { name: string; fromHeader: boolean } {
  if (op.remoteHeaderName) {
    const name = sanitizeFileName(nameFromContentDisposition(headerIn(c.response.rawHeaders, 'content-disposition'), { extended: false }) ?? '');
    if (name) return { name, fromHeader: true };
  }
  return { name: url.path.slice(url.path.lastIndexOf('/') + 1), fromHeader: false };
}

/** `plan`: the body's plan made from the head when `sling exec` wrote the body as it came (c.saved). */
export function afterTransfer(t: Transfer, url: CurlUrl, c: Completed, ctx: OutputContext, plan?: BodyPlan): AfterResult {
  const op = t.op;
  const result: AfterResult = { failures: [] };
  /** curl's own exit code, for -w's %{exitcode}: 22 for -f, 23 for a file it could not write, 33 for a range it could not resume. */
  let curlCode = 0;
  const fail = (message: string, code = 23) => {
    (result.errors ??= []).push(message);
    result.exitCode ??= 1;
    curlCode ||= code;
  };
  const status = c.response.status;
  const failed = (op.fail || op.failWithBody) && status >= 400;
  if (failed) curlCode = 22;
  if (failed) {
    result.exitCode = exitCodeForStatus(status);
    // curl: "(22) The requested URL returned error: 404".
    result.errors = [`the requested URL returned error: ${status}${c.response.reason ? ' ' + c.response.reason : ''} (${op.failWithBody ? '--fail-with-body' : '-f'})`];
  }

  const { outFile, bodyBytes, writeBody } = storeBody(t, url, c, ctx.cwd, fail, plan);
  // -D -: the heads go to the command's standard output, before the body (as they arrive in curl).
  const toStdout = dumpHeader(op, c, ctx, result, fail);
  if (toStdout && ctx.stdout?.kind === 'file') writeStdout(ctx, Buffer.from(allHeads(c), 'latin1'));
  if (outFile === undefined && ctx.stdout?.kind === 'file' && writeBody) writeStdout(ctx, bodyBytes);
  if (op.etagSave !== undefined) {
    const etag = headerIn(c.response.rawHeaders, 'etag');
    try {
      // Without an ETag, curl still makes the file, empty.
      writeToFile(resolve(ctx.cwd, op.etagSave), Buffer.from(etag !== undefined ? etag + '\n' : '', 'latin1'), 'replace');
    } catch (e) {
      fail(`--etag-save: cannot write '${op.etagSave}': ${fileProblem(e)}`);
    }
  }

  if (op.writeOut !== undefined) putWriteOut(result, ctx, writeOut(writeOutFormat(op.writeOut, ctx), t, url, c, effectiveName(op, outFile), curlCode, undefined, ctx.warn));
  return result;
}

/** Where a transfer's body goes (-o/-O/-J), decided from the response's head. */
/**
 * Where the body goes: the -o/-O/-J file (with -i's heads before it), made or appended (-C) as curl
 * does; `outFile` is undefined when the body goes to the command's standard output. Decided from the
 * head alone, so that `sling exec` can write a large body to its file as it arrives.
 */
export function planBody(t: Transfer, url: CurlUrl, c: Omit<Completed, 'body'>, cwd: string): BodyPlan {
  const op = t.op;
  const status = c.response.status;
  const failed = (op.fail || op.failWithBody) === true && status >= 400;
  const problems: [string, number][] = [];
  let outFile: string | undefined;
  let nameFromHeader = false;
  if (t.output !== undefined && !isStdout(t.output)) outFile = globName(t.output, t.globMatches);
  else if (t.remoteName && t.output === undefined) {
    const r = remoteName(url, c, op);
    nameFromHeader = r.fromHeader;
    outFile = r.name || undefined;
    if (!outFile) problems.push(['-O: the URL has no file name to save to (curl: "Remote file name has no length")', 23]);
  }
  // -i, and -I (which shows the headers as its output): the heads go before the body.
  const prefix = Buffer.from(op.include || op.noBody ? allHeads(c) : '', 'latin1');
  // -f writes no body on an HTTP error (but -i's heads, which curl has written as they came);
  // --remove-on-error leaves no file after one.
  const headOnly = op.fail === true && !op.failWithBody && failed;
  const writeBody = (!headOnly || prefix.length > 0) && !(failed && op.removeOnError);
  // -C: the request asked for a range.
  const ranged = op.continueAt !== undefined && headerInPairs(c.request.headers, 'range') !== undefined;
  const plan: BodyPlan = { outFile, how: 'replace', prefix, headOnly, writeBody, problems };
  if (outFile !== undefined && writeBody && outFile !== '/dev/null') {
    let path = resolve(cwd, op.outputDir ? resolve(cwd, op.outputDir, outFile) : outFile);
    // Taken: a file, a folder, or a link there, even one to nowhere (which existsSync misses).
    if (op.noClobber && occupied(path)) {
      let n = 1;
      while (occupied(`${path}.${n}`) && n < 100) n++;
      path = `${path}.${n}`;
    }
    if (ranged && status === 416) {
      // The file is complete already (curl: nothing to resume): left as it is.
    } else if (ranged && status >= 200 && status < 300 && status !== 206) {
      problems.push([`the server ignored the range request (HTTP ${status}): cannot resume (curl: "HTTP server doesn't seem to support byte ranges"); '${outFile}' is left as it was`, 33]);
    } else if (nameFromHeader && !op.noClobber && occupied(path)) {
      problems.push([`-J: '${outFile}' exists and is not overwritten (curl: "File exists")`, 23]);
    } else {
      try {
        // curl makes missing folders only with --create-dirs (--output-dir alone fails: "Failed to open").
        if (op.createDirs) makeDirs(dirname(path));
        plan.path = path;
        // A name the server chose (-J), or --no-clobber's, is made, never written over, whatever appears there meanwhile.
        if (ranged && status === 206) plan.how = 'append';
        else if (nameFromHeader || op.noClobber) plan.how = 'new';
      } catch (e) {
        problems.push([`cannot write '${outFile}': ${fileProblem(e)}`, 23]);
      }
    }
  }
  return plan;
}

/**
 * Writes the body where its plan says (unless `sling exec` has written it as it came: `c.saved`).
 * Also for a body cut short: curl has written the bytes that came (exit 18) and `curl -C -` resumes from them.
 */
function storeBody(
  t: Transfer,
  url: CurlUrl,
  c: Completed,
  cwd: string,
  fail: (message: string, code?: number) => void,
  given?: BodyPlan,
): { outFile?: string; bodyBytes: Buffer; writeBody: boolean } {
  const plan = given ?? planBody(t, url, c, cwd);
  for (const [message, code] of plan.problems) fail(message, code);
  const bodyBytes = plan.headOnly ? plan.prefix : Buffer.concat([plan.prefix, c.body]);
  if (plan.path !== undefined) {
    const problem = c.saved ? c.saved.find((f) => f.path === plan.path)?.problem : writeFile(plan.path, bodyBytes, plan.how);
    if (problem) fail(`cannot write '${plan.outFile}': ${problem}`);
  }
  return { outFile: plan.outFile, bodyBytes, writeBody: plan.writeBody };
}

function writeFile(path: string, data: Buffer, how: Creation): string | undefined {
  try {
    writeToFile(path, data, how);
    return undefined;
  } catch (e) {
    return fileProblem(e);
  }
}

/** -D: every hop's head to a file, or (`-D -`) under the response; true when it goes to the command's standard output. */
function dumpHeader(op: Operation, c: Completed, ctx: OutputContext, result: AfterResult, fail: (message: string) => void): boolean {
  const target = op.dumpHeader !== undefined && isStdout(op.dumpHeader) ? '-' : op.dumpHeader;
  if (target === undefined) return false;
  const text = allHeads(c);
  if (target === '-') {
    if (!ctx.stdout) result.log = [...(result.log ?? []), ...text.replace(/\r\n$/, '').split('\r\n')];
    return true;
  }
  if (target !== '/dev/null') {
    try {
      if (op.createDirs) makeDirs(dirname(resolve(ctx.cwd, target)));
      writeToFile(resolve(ctx.cwd, target), Buffer.from(text, 'latin1'), 'replace');
    } catch (e) {
      fail(`-D: cannot write '${target}': ${fileProblem(e)}`);
    }
  }
  return false;
}

/**
 * What curl still writes for a transfer that failed: -w (`%{http_code}` is 000 when no response
 * came, `%{exitcode}` curl's code, `%{errormsg}` the reason). A body cut short leaves what came of it
 * in the -o file (or the `> file`); a transfer with no response makes no output file.
 */
export function afterFailedTransfer(t: Transfer, url: CurlUrl, failed: FailedTransfer, ctx: OutputContext, plan?: BodyPlan): AfterResult {
  const result: AfterResult = { failures: [] };
  const op = t.op;
  let outFile: string | undefined;
  if (t.output !== undefined && !isStdout(t.output)) outFile = globName(t.output, t.globMatches);
  // A head came before the body failed: curl has written it with -D already, and the bytes of the
  // body that came to the -o file or the command's standard output.
  const c = failed.answered;
  if (c) {
    const problem = (m: string) => (result.errors ??= []).push(m);
    const toStdout = dumpHeader(op, c, ctx, result, problem);
    if (toStdout && ctx.stdout?.kind === 'file') writeStdout(ctx, Buffer.from(allHeads(c), 'latin1'));
    if (c.body.length || op.include || c.saved) {
      const stored = storeBody(t, url, c, ctx.cwd, problem, plan);
      outFile = stored.outFile;
      if (outFile === undefined && stored.writeBody) writeStdout(ctx, stored.bodyBytes);
    }
  }
  if (op.writeOut === undefined) return result;
  putWriteOut(result, ctx, writeOut(writeOutFormat(op.writeOut, ctx), t, url, undefined, effectiveName(op, outFile), failed.exitCode, failed, ctx.warn));
  return result;
}

/** %{filename_effective}: the file as curl names it, in --output-dir (`od/x.txt`, `od//x.txt` for `od/`). */
function effectiveName(op: Operation, outFile: string | undefined): string | undefined {
  return outFile !== undefined && op.outputDir ? `${op.outputDir}/${outFile}` : outFile;
}

/** -w @file reads the format from a file. */
function writeOutFormat(format: string, ctx: OutputContext): string {
  if (!format.startsWith('@')) return format;
  try {
    return readLimited(resolve(ctx.cwd, format.slice(1)), SETTINGS_FILE_LIMIT, format.slice(1), 'a -w format file').toString('latin1');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    ctx.warn(`-w: cannot read the format file '${format.slice(1)}'`);
    return '';
  }
}

/** -w's text: stdout's part to the command's `> file` or under the response, stderr's part to stderr. */
function putWriteOut(result: AfterResult, ctx: OutputContext, text: WriteOutText) {
  if (ctx.stdout?.kind === 'file') {
    if (text.out) writeStdout(ctx, Buffer.from(text.out, 'latin1'));
  } else if (ctx.stdout?.kind !== 'discard' && text.out) {
    const lines = Buffer.from(text.out, 'latin1').toString('utf8').replace(/\n$/, '').split('\n');
    result.log = [...(result.log ?? []), ...lines];
  }
  if (text.err) result.stderrText = Buffer.from(text.err, 'latin1').toString('utf8');
}

function writeStdout(ctx: OutputContext, data: Buffer) {
  if (ctx.stdout?.kind !== 'file') return;
  try {
    writeToFile(ctx.stdout.path, data, !ctx.stdoutStarted.value && !ctx.stdout.append ? 'replace' : 'append');
    ctx.stdoutStarted.value = true;
  } catch (e) {
    ctx.warn(`cannot write '${ctx.stdout.path}': ${fileProblem(e)}`);
  }
}

/** %{json}: numbers as numbers (`"http_code":200`), as curl writes them. */
function jsonVars(vars: Record<string, string>): string {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(vars)) {
    if (k === 'header_json') continue;
    out[k] =
      /^(http_code|http_connect|response_code|size_|speed_|time_|num_|exitcode|remote_port|local_port|urlnum|ssl_verify_result|proxy_ssl_verify_result)/.test(k) && /^\d+(\.\d+)?$/.test(v)
        ? Number(v)
        : v;
  }
  return JSON.stringify(out);
}

/** %{header_json}: the response's headers by lower-case name, each with its values in order, one name a line (curl 7.88's layout). */
function headerJson(raw: string[]): string {
  const byName = new Map<string, string[]>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const list = byName.get(name);
    if (list) list.push(raw[i + 1]!);
    else byName.set(name, [raw[i + 1]!]);
  }
  return '{' + [...byName].map(([n, v]) => `${JSON.stringify(n)}:${JSON.stringify(v)}`).join(',\n') + '\n}';
}

/** %{redirect_url}: the Location of a redirect that was not followed, made absolute as curl does. */
function absoluteLocation(c: Completed): string {
  const location = headerIn(c.response.rawHeaders, 'location');
  if (location === undefined || !REDIRECT_STATUS.has(c.response.status)) return '';
  try {
    return new URL(location, formatUrl(c.url)).href;
  } catch {
    return location;
  }
}

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** A transfer that got no response: what -w still reports about it. */
/**
 * curl's exit code for a failure sling reports in its own words (for -w's %{exitcode}): 6 host not
 * resolved, 7 could not connect, 18 body cut short, 28 timeout, 35 TLS, 47 too many redirects, 52
 * closed without an answer, 56 any other failure while receiving, 60 certificate not trusted.
 */
export function curlExitCode(e: Error): number {
  if (e instanceof TimeoutError) return 28;
  if (e instanceof TooManyRedirectsError) return 47;
  const code = ((e as { cause?: { code?: string } }).cause ?? {}).code ?? '';
  const m = e.message;
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') return 7;
  if (code.startsWith('EAI_') || code === 'ENOTFOUND') return 6;
  // A stream reset by the server (curl: 92 HTTP/2 stream error), a connection reset mid-body (56,
  // a receive failure); a body that ended early otherwise (18, partial file).
  if (/HTTP\/2 stream reset|reset the HTTP\/2 stream/.test(m)) return 92;
  if (/ was cut short.*: connection reset$/.test(m)) return 56;
  if (/ was cut short/.test(m)) return 18;
  // Also HTTP/2 with prior knowledge to a server that answers in HTTP/1.1 (curl 7.88: "Empty reply from server").
  if (/closed the connection without answering|did not answer in HTTP\/2/.test(m)) return 52;
  if (/^TLS handshake/.test(m)) return /certificate|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME|HOSTNAME/.test(m + code) ? 60 : 35;
  // curl takes an answer that is not HTTP/1.x for HTTP/0.9 and refuses it: 1.
  if (/ answered in HTTP\/2 to an HTTP\/1\.1 request| did not answer in HTTP:/.test(m)) return 1;
  if (/malformed|could not be decoded/.test(m)) return /could not be decoded/.test(m) ? 61 : 8;
  return 56;
}

/** -w's output: for stdout and, after %{stderr}, for stderr. */
export interface WriteOutText {
  out: string;
  err: string;
}

/** -w: curl's write-out variables sling can fill in, with \n \t \r and %% escapes; `c` is undefined when the transfer failed. */
export function writeOut(
  format: string,
  t: Transfer,
  url: CurlUrl,
  c: Completed | undefined,
  outFile: string | undefined,
  exitCode: number,
  failed?: FailedTransfer,
  warn?: (message: string) => void,
): WriteOutText {
  const vars = c
    ? doneVars(t, url, c, outFile, exitCode)
    : failed!.answered
      ? { ...doneVars(t, url, failed!.answered, outFile, failed!.exitCode), errormsg: failed!.message }
      : failedVars(t, url, failed!, outFile);
  const text: WriteOutText = { out: '', err: '' };
  let toErr = false;
  const put = (s: string) => {
    if (toErr) text.err += s;
    else text.out += s;
  };
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch === '\\' && i + 1 < format.length) {
      const n = format[i + 1]!;
      // curl knows these three; any other backslash is written as it is (`\\n` stays `\\n`).
      put(n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : ch + n);
      i++;
      continue;
    }
    if (ch === '%' && format[i + 1] === '%') {
      put('%');
      i++;
      continue;
    }
    // `%header{name}` (curl 7.84): a response header's value.
    if (ch === '%' && format.startsWith('header{', i + 1)) {
      const close = format.indexOf('}', i);
      if (close !== -1) {
        if (c) put(headerIn(c.response.rawHeaders, format.slice(i + 8, close).toLowerCase()) ?? '');
        i = close;
        continue;
      }
    }
    if (ch === '%' && format[i + 1] === '{') {
      const close = format.indexOf('}', i);
      if (close !== -1) {
        const name = format.slice(i + 2, close);
        i = close;
        if (name === 'stdout') toErr = false;
        else if (name === 'stderr') toErr = true;
        // The rest is written only when the transfer failed.
        else if (name === 'onerror') {
          if (vars.exitcode === '0') break;
        } else if (name === 'json') put(jsonVars(vars));
        else if (name in vars) put(vars[name]!);
        // As curl 7.88 says it (and writes nothing for it).
        else warn?.(`-w: unknown --write-out variable: '${name}'`);
        continue;
      }
    }
    put(ch);
  }
  return text;
}

function doneVars(t: Transfer, url: CurlUrl, c: Completed, outFile: string | undefined, exitCode: number): Record<string, string> {
  const timings = c.info.timings;
  const secs = (to?: number) => (to === undefined ? '0.000000' : ((to - timings.start) / 1000).toFixed(6));
  const total = ((timings.end ?? now()) - timings.start) / 1000;
  const downloaded = c.info.bodyBytes ?? c.body.length;
  // Bytes per second, whole, as curl writes them.
  const speed = (bytes: number) => String(total > 0 ? Math.round(bytes / total) : 0);
  return {
    http_code: String(c.response.status).padStart(3, '0'),
    response_code: String(c.response.status).padStart(3, '0'),
    http_version: c.response.httpVersion === '1.1' ? '1.1' : c.response.httpVersion,
    // After followed redirects: where the last one led (as curl reports it).
    url_effective: c.info.redirects ? formatUrl(c.url) : formatCurlUrl(url),
    url: t.urlText,
    urlnum: String(t.urlnum),
    content_type: headerIn(c.response.rawHeaders, 'content-type') ?? '',
    // The bytes that came, before --compressed decoded them.
    size_download: String(downloaded),
    speed_download: speed(downloaded),
    speed_upload: speed(c.request.body.length),
    size_header: String(Buffer.byteLength(allHeads(c), 'latin1')),
    size_request: String(c.request.body.length + Buffer.byteLength(`${c.request.method} ${c.request.target} HTTP/1.1\r\n` + c.request.headers.map(([n, v]) => `${n}: ${v}\r\n`).join('') + '\r\n')),
    size_upload: String(c.request.body.length),
    method: c.request.method,
    scheme: url.scheme.toUpperCase(),
    remote_ip: c.info.remoteAddress ?? '',
    remote_port: String(c.info.remotePort ?? ''),
    local_ip: c.info.localAddress ?? '',
    local_port: String(c.info.localPort ?? '0'),
    num_connects: c.info.reused ? '0' : '1',
    num_headers: String(c.response.rawHeaders.length / 2),
    header_json: headerJson(c.response.rawHeaders),
    redirect_url: absoluteLocation(c),
    // -e: the Referer curl set (not one given with -H).
    referer: t.op.referer === undefined ? '' : (headerInPairs(c.request.headers, 'referer') ?? ''),
    filename_effective: outFile ?? '',
    exitcode: String(exitCode),
    // -f on an HTTP error: curl's own words for it.
    errormsg: exitCode === 22 ? `The requested URL returned error: ${c.response.status}` : '',
    time_total: secs(timings.end ?? now()),
    time_namelookup: secs(timings.dns ?? timings.connect),
    time_connect: secs(timings.connect),
    time_appconnect: timings.tls ? secs(timings.tls) : '0.000000',
    time_pretransfer: secs(timings.tls ?? timings.connect),
    time_starttransfer: secs(timings.firstByte),
    time_redirect: '0.000000',
    num_redirects: String(c.info.redirects ?? 0),
    ssl_verify_result: '0',
    proxy_ssl_verify_result: '0',
    http_connect: '000',
    num_certs: '0',
  };
}

/** What curl 7.88 reports for a transfer that got no response (`000`, its exit code and message). */
function failedVars(t: Transfer, url: CurlUrl, f: FailedTransfer, outFile: string | undefined): Record<string, string> {
  const zero = '0.000000';
  return {
    http_code: '000',
    response_code: '000',
    http_version: '0',
    url_effective: formatCurlUrl(url),
    url: t.urlText,
    urlnum: String(t.urlnum),
    content_type: '',
    size_download: '0',
    speed_download: '0',
    speed_upload: '0',
    size_header: '0',
    size_request: '0',
    size_upload: '0',
    method: f.method,
    scheme: '',
    remote_ip: '',
    remote_port: '0',
    local_ip: '',
    local_port: '0',
    num_connects: '0',
    num_headers: '0',
    header_json: '{\n}',
    redirect_url: '',
    referer: t.op.referer === undefined ? '' : t.op.referer.replace(/;auto$/, ''),
    filename_effective: outFile ?? '',
    exitcode: String(f.exitCode),
    errormsg: f.message,
    time_total: ((now() - f.started) / 1000).toFixed(6),
    time_namelookup: zero,
    time_connect: zero,
    time_appconnect: zero,
    time_pretransfer: zero,
    time_starttransfer: zero,
    time_redirect: zero,
    num_redirects: '0',
    ssl_verify_result: '0',
    proxy_ssl_verify_result: '0',
    http_connect: '000',
    num_certs: '0',
  };
}
