/** An `Authorization: Basic` value: `user:password` as UTF-8 in base64 (as curl and HTTPie send it). */
export function basicAuth(userPass: string): string {
  return 'Basic ' + Buffer.from(userPass, 'utf8').toString('base64');
}
