import { escapeData } from './body.js';
import type { Operation } from './operation.js';
import { expandGlob, parseCurlUrl, type CurlUrl } from './url.js';

/**
 * The transfers of a command, planned when the file is parsed: each URL globbed (unless -g) and
 * checked, paired with its -o, -O and -T. A bad URL is found before anything is sent.
 */
export class CurlBuildError extends Error {}

/** One URL of a command, planned when the file is parsed. */
export interface Transfer {
  op: Operation;
  /** The URL after globbing, as written. */
  urlText: string;
  globMatches: string[];
  output?: string;
  remoteName: boolean;
  upload?: string;
  /** Which URL of the command this is, from 0 (curl's %{urlnum}; the URLs a glob makes share their pattern's). */
  urlnum: number;
}

/** Plans the transfers of a command's operations: URLs globbed and checked, outputs paired. */
export function planTransfers(ops: Operation[]): Transfer[] {
  const out: Transfer[] = [];
  let urlnum = 0;
  for (const op of ops) {
    if (op.info) continue;
    const nodes = op.nodes.filter((n) => n.url !== undefined);
    if (!nodes.length) throw new CurlBuildError('no URL specified');
    for (const node of nodes) {
      const urls = op.globoff ? [{ url: node.url!, matches: [] as string[] }] : expandGlob(node.url!);
      for (const u of urls) {
        const url = withUpload(parseCurlUrl(u.url, { defaultScheme: op.protoDefault, pathAsIs: op.pathAsIs }), node.upload);
        if (op.disallowUsername && url.user !== undefined) throw new CurlBuildError(`'${u.url}': user name in the URL is not allowed (--disallow-username-in-url)`);
        out.push({
          op,
          urlText: u.url,
          globMatches: u.matches,
          output: node.output,
          remoteName: Boolean(node.remoteName) || (op.remoteNameAll && node.output === undefined),
          upload: node.upload,
          urlnum,
        });
      }
      urlnum++;
    }
  }
  return out;
}

/** -T FILE to a URL ending in `/` (or with no path) appends the file's name, as curl does. */
export function withUpload(url: CurlUrl, upload: string | undefined): CurlUrl {
  if (upload === undefined || upload === '-' || upload === '.') return url;
  if (!url.path.endsWith('/')) return url;
  const base = upload.slice(Math.max(upload.lastIndexOf('/'), upload.lastIndexOf('\\')) + 1);
  return { ...url, path: url.path + escapeData(base).replace(/\+/g, '%20') };
}
