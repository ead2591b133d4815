/**
 * XML response bodies as documents, and `xpath(doc, expression)`, for JetBrains scripts and
 * httpyac's `?? xpath` assertions (runs inside the script engine: see README.md of this folder).
 * It is sling's own, small, and reads a document the way a browser's DOM shows it, for the parts
 * scripts use.
 *
 * The document: `documentElement`, `childNodes`, `getElementsByTagName(name | '*')`; elements have
 * `nodeName`/`tagName`, `localName`, `prefix`, `namespaceURI`, `attributes` (`name`, `value`),
 * `getAttribute`, `hasAttribute`, `childNodes`, `children`, `firstChild`, `lastChild`,
 * `parentNode`, `textContent`, `getElementsByTagName`; text, CDATA, comment and processing
 * instruction nodes have `nodeValue`/`data`. Entities: the five of XML and character references;
 * a DOCTYPE is skipped (its entities are not expanded). A body that is not well-formed stays text.
 *
 * XPath 1.0, the common subset: location paths (`/`, `//`, `.`, `..`, `@name`, `@*`, `*`,
 * `name`, `prefix:name`, `text()`, `node()`, `comment()`, `processing-instruction()`), the axes
 * child, descendant, descendant-or-self, self, parent, ancestor, ancestor-or-self,
 * following-sibling, preceding-sibling and attribute; predicates (`[1]`, `[last()]`,
 * `[@id='2']`, `[price > 10]`); `|`, `or`, `and`, `=`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`,
 * `*`, `div`, `mod`; the functions last, position, count, name, local-name, string, concat,
 * contains, starts-with, substring, substring-before, substring-after, string-length,
 * normalize-space, translate, not, true, false, boolean, number, sum, floor, ceiling, round. A name
 * without a prefix matches elements by their local name, whatever their namespace (a default
 * `xmlns` needs no prefix mapping); a prefixed name matches the prefix as written, or, for
 * select() with a prefix bound (httpyac's `@xpath_ns`), the namespace URI bound to it.
 * Not there: namespace::, following::, preceding::, id(), lang(), variables.
 *
 * Its state (the compiled expressions it keeps) is the realm's: each realm runs this module once.
 */
const ELEMENT = 1,
  ATTRIBUTE = 2,
  TEXT = 3,
  CDATA = 4,
  PI = 7,
  COMMENT = 8,
  DOCUMENT = 9;

/** A node of a document: the fields its kind has (an element's attributes, a text's value...). */
export interface XNode {
  nodeType: number;
  nodeName: string;
  childNodes: XNode[];
  parentNode: XNode | null;
  nodeValue?: string;
  data?: string;
  attributes?: XNode[];
  documentElement?: XNode | null;
  tagName?: string;
  name?: string;
  value?: string;
  target?: string;
  ownerElement?: XNode;
  prefix?: string | null;
  localName?: string;
  namespaceURI?: string | null;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const decode = (s: string) =>
  s.indexOf('&') === -1
    ? s
    : s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][\w.-]*);/g, (all, e: string) => {
        if (e[0] === '#') {
          const n = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
          return n <= 0x10ffff ? String.fromCodePoint(n) : all;
        }
        return Object.hasOwn(ENTITIES, e) ? ENTITIES[e] : all;
      });

function textOf(node: XNode): string {
  if (node.nodeType === TEXT || node.nodeType === CDATA || node.nodeType === COMMENT || node.nodeType === PI || node.nodeType === ATTRIBUTE) return node.nodeValue!;
  let out = '';
  const walk = (n: XNode) => {
    for (const c of n.childNodes) {
      if (c.nodeType === TEXT || c.nodeType === CDATA) out += c.nodeValue;
      else if (c.nodeType === ELEMENT) walk(c);
    }
  };
  walk(node);
  return out;
}
const proto: ThisType<XNode> & Record<string, unknown> = {
  // The members every node has, read from its fields (`this` is the node).
  get textContent() {
    return textOf(this);
  },
  get firstChild() {
    return this.childNodes[0] ?? null;
  },
  get lastChild() {
    return this.childNodes[this.childNodes.length - 1] ?? null;
  },
  get children() {
    return this.childNodes.filter((c) => c.nodeType === ELEMENT);
  },
  get nextSibling() {
    const p = this.parentNode;
    if (!p) return null;
    return p.childNodes[p.childNodes.indexOf(this) + 1] ?? null;
  },
  get previousSibling() {
    const p = this.parentNode;
    if (!p) return null;
    return p.childNodes[p.childNodes.indexOf(this) - 1] ?? null;
  },
  getAttribute(this: XNode, name: unknown) {
    const a = (this.attributes || []).find((x) => x.name === String(name));
    return a ? a.value : null;
  },
  hasAttribute(this: XNode, name: unknown) {
    return (this.attributes || []).some((x) => x.name === String(name));
  },
  getElementsByTagName(this: XNode, name: unknown) {
    const n = String(name);
    const out: XNode[] = [];
    const walk = (p: XNode) => {
      for (const c of p.childNodes)
        if (c.nodeType === ELEMENT) {
          if (n === '*' || c.nodeName === n) out.push(c);
          walk(c);
        }
    };
    walk(this);
    return out;
  },
  toString(this: XNode) {
    return textOf(this);
  },
};
const make = (fields: Partial<XNode>): XNode => Object.assign(Object.create(proto), fields);

export class XmlError extends Error {}
/** A document read from `text`, or an XmlError that says where it is not well-formed. */
export function parse(text: string): XNode {
  const doc = make({ nodeType: DOCUMENT, nodeName: '#document', childNodes: [], parentNode: null, documentElement: null });
  const stack = [doc];
  const scopes: Record<string, string>[] = [{ xml: 'http://www.w3.org/XML/1998/namespace' }];
  let i = 0;
  const lineAt = (at: number) => text.slice(0, at).split('\n').length;
  const fail: (why: string, at: number) => never = (why, at) => {
    throw new XmlError('the XML body is not well-formed: ' + why + ' (line ' + lineAt(at) + ')');
  };
  const add = (node: XNode) => {
    const p = stack[stack.length - 1];
    node.parentNode = p;
    p.childNodes.push(node);
  };
  const NAME = /[A-Za-z_:\u00C0-\uFFFF][\w.:\u00B7\u00C0-\uFFFF-]*/y;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt === -1 || lt > i) {
      const end = lt === -1 ? text.length : lt;
      const raw = text.slice(i, end);
      if (stack.length > 1) add(make({ nodeType: TEXT, nodeName: '#text', nodeValue: decode(raw), data: decode(raw), childNodes: [] }));
      else if (raw.trim() !== '') fail('text outside the root element', i);
      i = end;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) fail('a comment that does not end', i);
      const v = text.slice(i + 4, end);
      add(make({ nodeType: COMMENT, nodeName: '#comment', nodeValue: v, data: v, childNodes: [] }));
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end === -1) fail('a CDATA section that does not end', i);
      if (stack.length === 1) fail('CDATA outside the root element', i);
      const v = text.slice(i + 9, end);
      add(make({ nodeType: CDATA, nodeName: '#cdata-section', nodeValue: v, data: v, childNodes: [] }));
      i = end + 3;
    } else if (text.startsWith('<!DOCTYPE', i)) {
      // Skipped, internal subset and all: its entities are not expanded.
      let j = i + 9,
        depth = 0;
      for (; j < text.length; j++) {
        const c = text[j];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (j >= text.length) fail('a DOCTYPE that does not end', i);
      i = j + 1;
    } else if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) fail('a processing instruction that does not end', i);
      const body = text.slice(i + 2, end);
      const target = /^\S+/.exec(body)![0];
      if (target.toLowerCase() !== 'xml') add(make({ nodeType: PI, nodeName: target, target, nodeValue: body.slice(target.length).trim(), data: body.slice(target.length).trim(), childNodes: [] }));
      i = end + 2;
    } else if (text[i + 1] === '/') {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(text);
      if (!m) fail('a closing tag without a name', i);
      const top = stack[stack.length - 1];
      if (stack.length === 1 || top.nodeName !== m[0]) fail('</' + m[0] + '> closes ' + (stack.length === 1 ? 'nothing' : '<' + top.nodeName + '>'), i);
      const end = text.indexOf('>', NAME.lastIndex);
      if (end === -1 || text.slice(NAME.lastIndex, end).trim() !== '') fail('a malformed closing tag', i);
      stack.pop();
      scopes.pop();
      i = end + 1;
    } else {
      NAME.lastIndex = i + 1;
      const m = NAME.exec(text);
      if (!m) fail("a '<' that starts no tag", i);
      let j = NAME.lastIndex;
      const attrs: { name: string; value: string }[] = [];
      let selfClosing = false;
      for (;;) {
        while (j < text.length && /\s/.test(text[j])) j++;
        if (text[j] === '>') {
          j++;
          break;
        }
        if (text.startsWith('/>', j)) {
          j += 2;
          selfClosing = true;
          break;
        }
        NAME.lastIndex = j;
        const a = NAME.exec(text);
        if (!a || j === NAME.lastIndex) fail('a malformed tag <' + m[0] + '>', i);
        j = NAME.lastIndex;
        while (/\s/.test(text[j] ?? '')) j++;
        if (text[j] !== '=') fail('attribute ' + a[0] + ' of <' + m[0] + '> has no value', i);
        j++;
        while (/\s/.test(text[j] ?? '')) j++;
        const q = text[j];
        if (q !== '"' && q !== "'") fail('attribute ' + a[0] + ' of <' + m[0] + '> is not quoted', i);
        const close = text.indexOf(q, j + 1);
        if (close === -1) fail('attribute ' + a[0] + ' of <' + m[0] + '> does not end', i);
        if (attrs.some((x) => x.name === a[0])) fail('attribute ' + a[0] + ' twice in <' + m[0] + '>', i);
        const v = decode(text.slice(j + 1, close));
        attrs.push({ name: a[0], value: v });
        j = close + 1;
      }
      const scope = Object.assign(Object.create(null), scopes[scopes.length - 1]);
      for (const a of attrs) {
        if (a.name === 'xmlns') scope[''] = a.value;
        else if (a.name.startsWith('xmlns:')) scope[a.name.slice(6)] = a.value;
      }
      const split = (q: string, el: boolean) => {
        const c = q.indexOf(':');
        const prefix = c === -1 ? null : q.slice(0, c);
        return { prefix, localName: c === -1 ? q : q.slice(c + 1), namespaceURI: prefix !== null ? (scope[prefix] ?? null) : el ? scope[''] || null : null };
      };
      const el = make(Object.assign({ nodeType: ELEMENT, nodeName: m[0], tagName: m[0], childNodes: [], attributes: [] }, split(m[0], true)));
      for (const a of attrs) {
        el.attributes!.push(
          make(Object.assign({ nodeType: ATTRIBUTE, nodeName: a.name, name: a.name, nodeValue: a.value, value: a.value, childNodes: [], parentNode: el, ownerElement: el }, split(a.name, false))),
        );
      }
      if (stack.length === 1) {
        if (doc.documentElement) fail('a second root element <' + m[0] + '>', i);
        doc.documentElement = el;
      }
      add(el);
      if (!selfClosing) {
        stack.push(el);
        scopes.push(scope);
      }
      i = j;
    }
  }
  if (stack.length > 1) fail('<' + stack[stack.length - 1].nodeName + '> is not closed', text.length);
  if (!doc.documentElement) fail('no root element', 0);
  return doc;
}

// ---- XPath 1.0 (the subset above) ----
class XPathError extends Error {}

/** A token: an operator or punctuation (`t` is its text), a string literal ('str'), a number ('num') or a name ('name'). */
interface Token {
  t: string;
  v?: string | number;
}
/** A node test of a step: node(), text(), comment(), processing-instruction(), `*`, `prefix:*` or a name. */
interface NodeTest {
  type: string;
  prefix?: string;
  name?: string;
}
interface Step {
  axis: string;
  test: NodeTest;
  preds: Expr[];
}
/** An expression, compiled. */
type Expr =
  | { k: 'lit'; v: string | number }
  | { k: 'neg'; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'call'; name: string; args: Expr[] }
  | { k: 'filter'; e: Expr; preds: Expr[] }
  | { k: 'path'; abs?: boolean; from?: Expr; steps: Step[] };
/** What an expression gives: a node-set (in document order), a string, a number or a boolean. */
type Value = XNode[] | string | number | boolean;
/** Where an expression is evaluated: the context node, its position and the size of its node-set. */
interface Context {
  node: XNode;
  position?: number;
  size?: number;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  const re =
    /\s*(?:(\.\.|::|\/\/|!=|<=|>=|[/()[\]@,|=<>*+.$-])|("[^"]*"|'[^']*')|(\d+(?:\.\d*)?|\.\d+)|([A-Za-z_\u00C0-\uFFFF][\w.\u00B7\u00C0-\uFFFF-]*(?::(?:\*|[A-Za-z_\u00C0-\uFFFF][\w.\u00B7\u00C0-\uFFFF-]*))?))/y;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(src);
    if (!m) throw new XPathError("xpath: unexpected '" + src.slice(at).trim().slice(0, 20) + "' in " + src);
    at = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: m[1] });
    else if (m[2] !== undefined) out.push({ t: 'str', v: m[2].slice(1, -1) });
    else if (m[3] !== undefined) out.push({ t: 'num', v: Number(m[3]) });
    else out.push({ t: 'name', v: m[4] });
  }
  return out;
}
const AXES = ['ancestor', 'ancestor-or-self', 'attribute', 'child', 'descendant', 'descendant-or-self', 'following-sibling', 'parent', 'preceding-sibling', 'self'];
const NODE_TYPES = ['node', 'text', 'comment', 'processing-instruction'];
function compileXPath(src: string): Expr {
  const toks = tokenize(src);
  let p = 0;
  const peek = (k = 0) => toks[p + k];
  const is = (t: string, k = 0) => {
    const x = toks[p + k];
    return !!x && x.t === t;
  };
  const isOp = (name: string) => {
    const x = toks[p];
    return (
      !!x &&
      x.t === 'name' &&
      x.v === name &&
      p > 0 &&
      !['@', '::', '(', '[', ',', '/', '//', 'and', 'or', 'mod', 'div', '|', '+', '-', '=', '!=', '<', '<=', '>', '>='].includes(toks[p - 1].t === 'name' ? '' : toks[p - 1].t)
    );
  };
  const expect = (t: string) => {
    if (!is(t)) throw new XPathError("xpath: expected '" + t + "' in " + src);
    p++;
  };
  const binary = (next: () => Expr, ops: string[]) => (): Expr => {
    let left = next();
    for (;;) {
      const x = peek();
      if (!x) return left;
      const op = x.t === 'name' ? (x.v as string) : x.t;
      if (!ops.includes(op) || (x.t === 'name' && !isOp(op)) || (x.t === '*' && !mulContext())) return left;
      p++;
      const right = next();
      const l = left;
      left = { k: 'bin', op, l, r: right };
    }
  };
  // '*' is multiplication only after an operand.
  const mulContext = () => {
    const prev = toks[p - 1];
    return !!prev && (prev.t === ')' || prev.t === ']' || prev.t === 'str' || prev.t === 'num' || prev.t === 'name' || prev.t === '*' || prev.t === '.' || prev.t === '..');
  };
  const orExpr = (): Expr => binary(andExpr, ['or'])();
  const andExpr = () => binary(eqExpr, ['and'])();
  const eqExpr = () => binary(relExpr, ['=', '!='])();
  const relExpr = () => binary(addExpr, ['<', '<=', '>', '>='])();
  const addExpr = () => binary(mulExpr, ['+', '-'])();
  const mulExpr = () => binary(unaryExpr, ['*', 'div', 'mod'])();
  function unaryExpr(): Expr {
    if (is('-')) {
      p++;
      return { k: 'neg', e: unaryExpr() };
    }
    return unionExpr();
  }
  function unionExpr(): Expr {
    let left = pathExpr();
    while (is('|')) {
      p++;
      left = { k: 'bin', op: '|', l: left, r: pathExpr() };
    }
    return left;
  }
  function predicates(): Expr[] {
    const list: Expr[] = [];
    while (is('[')) {
      p++;
      list.push(orExpr());
      expect(']');
    }
    return list;
  }
  function primary(): Expr | null {
    const x = peek();
    if (!x) throw new XPathError('xpath: the expression ends too early: ' + src);
    if (x.t === '(') {
      p++;
      const e = orExpr();
      expect(')');
      return e;
    }
    if (x.t === 'str') {
      p++;
      return { k: 'lit', v: x.v as string };
    }
    if (x.t === 'num') {
      p++;
      return { k: 'lit', v: x.v as number };
    }
    if (x.t === '$') throw new XPathError('xpath: variables are not supported: ' + src);
    if (x.t === 'name' && is('(', 1) && !NODE_TYPES.includes(x.v as string)) {
      p += 2;
      const args: Expr[] = [];
      if (!is(')')) {
        args.push(orExpr());
        while (is(',')) {
          p++;
          args.push(orExpr());
        }
      }
      expect(')');
      return { k: 'call', name: x.v as string, args };
    }
    return null;
  }
  function startsStep() {
    const x = peek();
    return !!x && (x.t === 'name' || x.t === '*' || x.t === '@' || x.t === '.' || x.t === '..');
  }
  function pathExpr(): Expr {
    if (is('/') || is('//')) {
      const steps: Step[] = [];
      if (is('/')) {
        p++;
        if (startsStep()) relative(steps);
      } else {
        p++;
        steps.push({ axis: 'descendant-or-self', test: { type: 'node' }, preds: [] });
        relative(steps);
      }
      return { k: 'path', abs: true, steps };
    }
    const save = p;
    const prim = primary();
    if (prim) {
      const preds = predicates();
      let e: Expr = preds.length ? { k: 'filter', e: prim, preds } : prim;
      if (is('/') || is('//')) {
        const steps: Step[] = [];
        if (is('//')) steps.push({ axis: 'descendant-or-self', test: { type: 'node' }, preds: [] });
        p++;
        relative(steps);
        e = { k: 'path', from: e, steps };
      }
      return e;
    }
    p = save;
    const steps: Step[] = [];
    relative(steps);
    return { k: 'path', steps };
  }
  function relative(steps: Step[]) {
    steps.push(step());
    while (is('/') || is('//')) {
      if (is('//')) steps.push({ axis: 'descendant-or-self', test: { type: 'node' }, preds: [] });
      p++;
      steps.push(step());
    }
  }
  function step(): Step {
    if (is('.')) {
      p++;
      return { axis: 'self', test: { type: 'node' }, preds: [] };
    }
    if (is('..')) {
      p++;
      return { axis: 'parent', test: { type: 'node' }, preds: [] };
    }
    let axis = 'child';
    if (is('@')) {
      p++;
      axis = 'attribute';
    } else if (is('name') && is('::', 1)) {
      axis = peek()!.v as string;
      if (!AXES.includes(axis)) throw new XPathError('xpath: the ' + axis + ' axis is not supported: ' + src);
      p += 2;
    }
    const x = peek();
    let test: NodeTest;
    if (!x) throw new XPathError('xpath: a step is missing at the end of ' + src);
    if (x.t === '*') {
      p++;
      test = { type: 'any' };
    } else if (x.t === 'name' && NODE_TYPES.includes(x.v as string) && is('(', 1)) {
      p += 2;
      if (is('str')) p++;
      expect(')');
      test = { type: x.v as string };
    } else if (x.t === 'name') {
      p++;
      const name = x.v as string;
      test = name.endsWith(':*') ? { type: 'prefix', prefix: name.slice(0, -2) } : { type: 'name', name };
    } else throw new XPathError("xpath: unexpected '" + (x.v ?? x.t) + "' in " + src);
    return { axis, test, preds: predicates() };
  }
  const ast = orExpr();
  if (p < toks.length) throw new XPathError("xpath: unexpected '" + (toks[p].v ?? toks[p].t) + "' in " + src);
  return ast;
}

const isNodes = (v: Value): v is XNode[] => Array.isArray(v);
const stringOf = (v: Value): string => (isNodes(v) ? (v.length ? textOf(v[0]) : '') : typeof v === 'number' ? numText(v) : typeof v === 'boolean' ? String(v) : String(v));
const numText = (n: number) => (Number.isNaN(n) ? 'NaN' : Number.isInteger(n) ? String(n) : String(n));
const numberOf = (v: Value): number => {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const s = stringOf(v).trim();
  return s === '' || !/^-?(\d+(\.\d*)?|\.\d+)$/.test(s) ? NaN : Number(s);
};
const boolOf = (v: Value): boolean => (isNodes(v) ? v.length > 0 : typeof v === 'number' ? v !== 0 && !Number.isNaN(v) : typeof v === 'string' ? v.length > 0 : !!v);

function axisNodes(node: XNode, axis: string): XNode[] {
  const out: XNode[] = [];
  const kids = (n: XNode) => n.childNodes || [];
  const desc = (n: XNode) => {
    for (const c of kids(n)) {
      out.push(c);
      desc(c);
    }
  };
  switch (axis) {
    case 'child':
      return kids(node).slice();
    case 'attribute':
      return node.nodeType === ELEMENT ? node.attributes!.slice() : [];
    case 'self':
      return [node];
    case 'parent':
      return node.parentNode ? [node.parentNode] : [];
    case 'descendant':
      desc(node);
      return out;
    case 'descendant-or-self':
      out.push(node);
      desc(node);
      return out;
    case 'ancestor':
      for (let n: XNode | null = node.parentNode; n; n = n.parentNode) out.push(n);
      return out;
    case 'ancestor-or-self':
      for (let n: XNode | null = node; n; n = n.parentNode) out.push(n);
      return out;
    case 'following-sibling': {
      const p = node.parentNode;
      if (!p || node.nodeType === ATTRIBUTE) return [];
      return kids(p).slice(kids(p).indexOf(node) + 1);
    }
    case 'preceding-sibling': {
      const p = node.parentNode;
      if (!p || node.nodeType === ATTRIBUTE) return [];
      return kids(p).slice(0, kids(p).indexOf(node)).reverse();
    }
  }
  return [];
}
// Prefixes bound by the caller (select's ns), while one evaluation runs.
let namespaces: Record<string, unknown> | null = null;
const bound = (prefix: string) => (namespaces && Object.hasOwn(namespaces, prefix) ? String(namespaces[prefix]) : undefined);
function matches(node: XNode, test: NodeTest, axis: string): boolean {
  const principal = axis === 'attribute' ? ATTRIBUTE : ELEMENT;
  switch (test.type) {
    case 'node':
      return true;
    case 'text':
      return node.nodeType === TEXT || node.nodeType === CDATA;
    case 'comment':
      return node.nodeType === COMMENT;
    case 'processing-instruction':
      return node.nodeType === PI;
    case 'any':
      return node.nodeType === principal;
    case 'prefix':
      return node.nodeType === principal && (bound(test.prefix!) !== undefined ? node.namespaceURI === bound(test.prefix!) : node.prefix === test.prefix);
    case 'name': {
      if (node.nodeType !== principal) return false;
      const name = test.name!;
      const c = name.indexOf(':');
      if (c === -1) return node.localName === name;
      const uri = bound(name.slice(0, c));
      return uri !== undefined ? node.namespaceURI === uri && node.localName === name.slice(c + 1) : node.nodeName === name;
    }
  }
  return false;
}
// Document order, without duplicates.
function ordered(nodes: XNode[]): XNode[] {
  if (nodes.length < 2) return nodes;
  const seen = new Set(nodes);
  const out: XNode[] = [];
  const root = (n: XNode) => {
    while (n.parentNode) n = n.parentNode;
    return n;
  };
  const walk = (n: XNode) => {
    if (seen.has(n)) out.push(n);
    if (n.nodeType === ELEMENT) for (const a of n.attributes!) if (seen.has(a)) out.push(a);
    for (const c of n.childNodes || []) walk(c);
  };
  walk(root(nodes[0]!));
  return out.length === seen.size ? out : Array.from(seen);
}
function evaluate(e: Expr, ctx: Context): Value {
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'neg':
      return -numberOf(evaluate(e.e, ctx));
    case 'filter': {
      let v = evaluate(e.e, ctx);
      if (!isNodes(v)) throw new XPathError('xpath: a predicate on something that is not a node-set');
      for (const pr of e.preds) v = filter(v, pr);
      return v;
    }
    case 'path': {
      let nodes: XNode[];
      if (e.from) {
        const v = evaluate(e.from, ctx);
        if (!isNodes(v)) throw new XPathError('xpath: a path from something that is not a node-set');
        nodes = v;
      } else if (e.abs) {
        let r = ctx.node;
        while (r.parentNode) r = r.parentNode;
        nodes = [r];
      } else nodes = [ctx.node];
      for (const st of e.steps) {
        const next: XNode[] = [];
        for (const n of nodes) {
          let found = axisNodes(n, st.axis).filter((x) => matches(x, st.test, st.axis));
          for (const pr of st.preds) found = filter(found, pr);
          for (const f of found) next.push(f);
        }
        nodes = ordered(next);
      }
      return nodes;
    }
    case 'bin':
      return binaryOp(e.op, e.l, e.r, ctx);
    case 'call':
      return call(e.name, e.args, ctx);
  }
  throw new XPathError('xpath: cannot evaluate');
}
function filter(nodes: XNode[], pred: Expr): XNode[] {
  const out: XNode[] = [];
  nodes.forEach((n, i) => {
    const v = evaluate(pred, { node: n, position: i + 1, size: nodes.length });
    if (typeof v === 'number' ? v === i + 1 : boolOf(v)) out.push(n);
  });
  return out;
}
function compare(op: string, a: Value, b: Value): boolean {
  const cmp = (x: Value, y: Value) => {
    if (op === '=' || op === '!=') {
      const eq =
        typeof x === 'boolean' || typeof y === 'boolean' ? boolOf(x) === boolOf(y) : typeof x === 'number' || typeof y === 'number' ? numberOf(x) === numberOf(y) : stringOf(x) === stringOf(y);
      return op === '=' ? eq : !eq;
    }
    const l = numberOf(x),
      r = numberOf(y);
    return op === '<' ? l < r : op === '<=' ? l <= r : op === '>' ? l > r : l >= r;
  };
  // A node-set compares through each of its nodes' string values.
  if (isNodes(a) && isNodes(b)) return a.some((x) => b.some((y) => cmp(textOf(x), textOf(y))));
  if (isNodes(a)) return typeof b === 'boolean' ? cmp(boolOf(a), b) : a.some((x) => cmp(typeof b === 'number' ? numberOf(textOf(x)) : textOf(x), b));
  if (isNodes(b)) return typeof a === 'boolean' ? cmp(a, boolOf(b)) : b.some((y) => cmp(a, typeof a === 'number' ? numberOf(textOf(y)) : textOf(y)));
  return cmp(a, b);
}
function binaryOp(op: string, l: Expr, r: Expr, ctx: Context): Value {
  if (op === 'or') return boolOf(evaluate(l, ctx)) || boolOf(evaluate(r, ctx));
  if (op === 'and') return boolOf(evaluate(l, ctx)) && boolOf(evaluate(r, ctx));
  const a = evaluate(l, ctx),
    b = evaluate(r, ctx);
  if (op === '|') {
    if (!isNodes(a) || !isNodes(b)) throw new XPathError("xpath: '|' joins node-sets only");
    return ordered(a.concat(b));
  }
  if (['=', '!=', '<', '<=', '>', '>='].includes(op)) return compare(op, a, b);
  const x = numberOf(a),
    y = numberOf(b);
  return op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === 'div' ? x / y : x % y;
}
function call(name: string, args: Expr[], ctx: Context): Value {
  const v = (i: number) => evaluate(args[i]!, ctx);
  const s = (i: number) => (args.length > i ? stringOf(v(i)) : textOf(ctx.node));
  const nodesArg = (i: number) => {
    const x = args.length > i ? v(i) : [ctx.node];
    if (!isNodes(x)) throw new XPathError('xpath: ' + name + '() takes a node-set');
    return x;
  };
  switch (name) {
    case 'last':
      return ctx.size ?? 1;
    case 'position':
      return ctx.position ?? 1;
    case 'count':
      return nodesArg(0).length;
    case 'name': {
      const n = nodesArg(0)[0];
      return n && (n.nodeType === ELEMENT || n.nodeType === ATTRIBUTE || n.nodeType === PI) ? n.nodeName : '';
    }
    case 'local-name': {
      const n = nodesArg(0)[0];
      return n && (n.nodeType === ELEMENT || n.nodeType === ATTRIBUTE) ? n.localName! : n && n.nodeType === PI ? n.nodeName : '';
    }
    case 'namespace-uri': {
      const n = nodesArg(0)[0];
      return (n && n.namespaceURI) || '';
    }
    case 'string':
      return s(0);
    case 'concat':
      return args.map((_, i) => stringOf(v(i))).join('');
    case 'contains':
      return s(0).includes(s(1));
    case 'starts-with':
      return s(0).startsWith(s(1));
    case 'ends-with':
      return s(0).endsWith(s(1));
    case 'substring-before': {
      const a = s(0),
        b = s(1),
        i = a.indexOf(b);
      return i === -1 ? '' : a.slice(0, i);
    }
    case 'substring-after': {
      const a = s(0),
        b = s(1),
        i = a.indexOf(b);
      return i === -1 ? '' : a.slice(i + b.length);
    }
    case 'substring': {
      const str = s(0);
      const start = Math.round(numberOf(v(1)));
      const end = args.length > 2 ? start + Math.round(numberOf(v(2))) : Infinity;
      let out = '';
      const chars = Array.from(str);
      chars.forEach((c, i) => {
        if (i + 1 >= start && i + 1 < end) out += c;
      });
      return out;
    }
    case 'string-length':
      return Array.from(s(0)).length;
    case 'normalize-space':
      return s(0).trim().replace(/\s+/g, ' ');
    case 'translate': {
      const from = Array.from(s(1)),
        to = Array.from(s(2));
      return Array.from(s(0))
        .map((c) => {
          const i = from.indexOf(c);
          return i === -1 ? c : (to[i] ?? '');
        })
        .join('');
    }
    case 'not':
      return !boolOf(v(0));
    case 'true':
      return true;
    case 'false':
      return false;
    case 'boolean':
      return boolOf(v(0));
    case 'number':
      return args.length ? numberOf(v(0)) : numberOf(textOf(ctx.node));
    case 'sum':
      return nodesArg(0).reduce((t, n) => t + numberOf(textOf(n)), 0);
    case 'floor':
      return Math.floor(numberOf(v(0)));
    case 'ceiling':
      return Math.ceil(numberOf(v(0)));
    case 'round':
      return Math.round(numberOf(v(0)));
  }
  throw new XPathError('xpath: the function ' + name + '() is not supported');
}
/** Expressions compiled, by their text (at most 500 kept). */
const cache = new Map<string, Expr>();
function run(doc: XNode, expression: unknown): Value {
  const src = String(expression);
  let ast = cache.get(src);
  if (!ast) {
    ast = compileXPath(src);
    if (cache.size < 500) cache.set(src, ast);
  }
  return evaluate(ast, { node: doc, position: 1, size: 1 });
}
/** JetBrains' `xpath(doc, expression)`: the first node of a node-set (or null), or the value. */
export function xpath(doc: XNode, expression: unknown): XNode | string | number | boolean | null {
  const v = run(doc, expression);
  return isNodes(v) ? (v.length ? v[0] : null) : v;
}
// httpyac's '?? xpath' value: no node is undefined, one node its text, several a list of texts;
// a number, string or boolean as it is. ns: prefix to namespace URI ('@xpath_ns prefix=uri').
export function select(doc: XNode, expression: unknown, ns: unknown): string | number | boolean | string[] | undefined {
  namespaces = ns && typeof ns === 'object' ? (ns as Record<string, unknown>) : null;
  try {
    const v = run(doc, expression);
    if (!isNodes(v)) return v;
    if (v.length === 0) return undefined;
    return v.length === 1 ? textOf(v[0]) : v.map(textOf);
  } finally {
    namespaces = null;
  }
}
/** Whether `x` is a node of a document this module made. */
export const isNode = (x: unknown): x is XNode => !!x && typeof x === 'object' && Object.getPrototypeOf(x) === proto;
