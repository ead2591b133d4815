/**
 * Which named requests a .http request needs run before it (for --name and --line): `{{login.token}}`
 * references, httpyac's `{{login}}`, `# @ref`, through file variables, and the request above whose
 * script sets a global it uses. Pure reading of the parsed file: nothing is built or sent.
 */
import type { RequestNode, ScriptNode } from './ast.js';
import { expressions, type Template } from './template.js';
import { pickDef, type FileCtx, type Runtime } from './vars.js';

export function requestName(node: RequestNode): string | undefined {
  return node.atName ?? node.title;
}

export function templatesOf(node: RequestNode): Template[] {
  const out: Template[] = [node.url];
  for (const h of node.headers) out.push(h.name, h.value);
  for (const b of node.body) out.push(b.kind === 'text' ? b.t : b.path);
  return out;
}

/** `client.global.set("name", ...)` with the name written as a string. */
const GLOBAL_SET = /\bclient\s*\.\s*global\s*\.\s*set\s*\(\s*(['"`])([^'"`\\\s]+)\1/g;

function setsGlobal(scripts: ScriptNode[], name: string): boolean {
  for (const s of scripts) if (s.code !== undefined && !s.lua) for (const m of s.code.matchAll(GLOBAL_SET)) if (m[2] === name) return true;
  return false;
}

/** Per file: for each global its scripts set by name, the named requests that set it (in file order). */
const setters = new WeakMap<FileCtx, Map<string, { line: number; name: string }[]>>();

/**
 * The named request nearest above `line` whose pre-request script or handler sets the global `name`
 * (`client.global.set("token", ...)`): what a run of the whole file would have run before, so that
 * `--name`/`--line` run it first. A request below never moves up.
 */
function globalSetter(file: FileCtx, name: string, line: number): string | undefined {
  let byName = setters.get(file);
  if (!byName) {
    byName = new Map();
    for (const item of file.parsed.items) {
      if (item.kind !== 'request') continue;
      const own = requestName(item);
      if (own === undefined) continue;
      for (const s of [...item.pre, ...item.handlers]) {
        if (s.code === undefined || s.lua) continue;
        for (const m of s.code.matchAll(GLOBAL_SET)) {
          const list = byName.get(m[2]!) ?? [];
          if (list.at(-1)?.line !== item.line) list.push({ line: item.line, name: own });
          byName.set(m[2]!, list);
        }
      }
    }
    setters.set(file, byName);
  }
  let found: string | undefined;
  for (const s of byName.get(name) ?? []) if (s.line < line) found = s.name;
  return found;
}

/** The requests this one needs (references, httpyac `name.field`, `# @ref`), through file variables. */
export function dependencies(node: RequestNode, file: FileCtx, rt: Pick<Runtime, 'requestNames' | 'atNames' | 'env'>): string[] {
  const names = rt.requestNames;
  const deps = new Set<string>(node.directives.refs);
  const seen = new Set<string>();
  const visit = (t: Template) => {
    for (const e of expressions(t)) {
      if (e.kind === 'ref') deps.add(e.name);
      if (e.kind !== 'var' || seen.has(e.name)) continue;
      seen.add(e.name);
      const first = e.name.split('.')[0]!;
      // httpyac's `{{login.token}}` and `{{login}}` (the whole response), unless a variable has that
      // name (an environment's, a file's: it is what the placeholder gives); `{{login}}` only for a
      // `# @name`, not a `### title` (a title that happens to be a variable's name, `### token`,
      // must not move its request before this one).
      if (rt.env.vars.has(e.name)) {
        // the environment's variable
      } else if (e.name.includes('.') && names.has(first) && !rt.env.vars.has(first)) deps.add(first);
      else if (!e.name.includes('.') && rt.atNames.has(e.name) && !file.parsed.vars.has(e.name)) deps.add(e.name);
      const defs = file.parsed.vars.get(e.name);
      if (defs) visit(pickDef(defs, node.line).value);
      else if (!e.name.includes('.') && !rt.env.vars.has(e.name) && !setsGlobal(node.pre, e.name)) {
        const setter = globalSetter(file, e.name, node.line);
        if (setter !== undefined) deps.add(setter);
      }
    }
  };
  for (const t of templatesOf(node)) visit(t);
  for (const a of node.asserts) visit(a.expected);
  const self = requestName(node);
  if (self) deps.delete(self);
  return [...deps];
}
