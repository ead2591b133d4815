// pako's deflate half (lib/deflate.js, CommonJS): @types/pako only describes the package's main entry.
declare module 'pako/lib/deflate.js' {
  const pako: { deflate(data: Uint8Array, options?: { level?: number }): Uint8Array };
  export default pako;
}
