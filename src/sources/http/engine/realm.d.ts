// What the code of this folder may use: the globals of a QuickJS realm (ECMAScript 2022, the
// `lib` of tsconfig.json here: no Node, no DOM, no timers, no console) and the one host function
// sling gives each realm. The `var`s below are the globals the setup programs themselves put in
// the realm for scripts (lib.ts, jetbrains.ts); scripts may replace most of them, so the setup
// code keeps its own references and never reads them back.

/**
 * The realm's one way out (script.ts answers it): an operation's name and string arguments (any
 * other value arrives as undefined); a string or nothing back. It is `globalThis.__sling_host`
 * only while the setup program runs: the program keeps it in a closure and deletes the global.
 */
type SlingHost = (op: string, ...args: (string | undefined)[]) => string | undefined;

declare var __sling_host: SlingHost | undefined;

// lib.ts, in every realm.
declare var require: (name: unknown) => unknown;
declare var atob: (text: unknown) => string;
declare var btoa: (text: unknown) => string;
declare var Window: { atob: (text: unknown) => string; btoa: (text: unknown) => string } | undefined;

// jetbrains.ts: the JetBrains HTTP Client's API.
declare var client: object;
declare var request: { variables: object; environment: object } | undefined;
declare var response: object | undefined;
declare var crypto: object;
declare var xpath: (doc: unknown, expression: unknown) => unknown;
declare var jsonPath: (doc: unknown, path: unknown) => unknown;
declare var console: Record<string, (...args: unknown[]) => void>;
declare var assert: (condition: unknown, message?: unknown) => void;
