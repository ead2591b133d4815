/** An `Authorization: Basic` value: `user:password` as UTF-8 in base64 (as curl and HTTPie send it). */
export function basicAuth(userPass: string): string {
  return 'Basic ' + Buffer.from(userPass, 'utf8').toString('base64');
}

/** `-a user:password` (also HTTPie's `raw_auth`): the first colon ends the user name; `\:` keeps a colon in it. */
export function splitCredentials(text: string): { user: string; password?: string } {
  let user = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && text[i + 1] === ':') {
      user += ':';
      i++;
    } else if (text[i] === ':') return { user, password: text.slice(i + 1) };
    else user += text[i];
  }
  return { user };
}
