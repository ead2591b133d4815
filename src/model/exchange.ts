// The exchange as data: what came back for a request (its head, where and how it came, when each
// step happened), shared by transport/ (which fills it), output/ (which prints it) and the commands.
// Types only, importing nothing: nothing here holds a socket or a stream.

/** What came back for one request: the head as received and the body as a raw (still encoded) stream. */
export interface ResponseHead {
  httpVersion: string;
  status: number;
  reason: string;
  /** Flat [name, value, name, value, ...], original case and order. */
  rawHeaders: string[];
}

export interface Timings {
  start: number;
  dns?: number;
  connect?: number;
  tls?: number;
  firstByte?: number;
  end?: number;
}

export interface HopInfo {
  remoteAddress?: string;
  remotePort?: number;
  /** This end of the connection (curl's %{local_ip} and %{local_port}). */
  localAddress?: string;
  localPort?: number;
  tlsProtocol?: string;
  tlsCipher?: string;
  reused: boolean;
  proxy?: string;
  /** The body's bytes as they came, when it was decoded (curl's %{size_download} counts these). */
  bodyBytes?: number;
  /** Set when --timeout fired (also while the body was streaming). */
  timedOut?: boolean;
  /** The body was not read to its end (an intermediate answer's, past HOP_BODY_LIMIT). */
  bodyCut?: boolean;
  timings: Timings;
  /** On the final hop of a request whose redirects were followed: how many (curl's %{num_redirects}). */
  redirects?: number;
  /** The response heads of the hops before the final one, when the caller asked for them (curl's -D and -i after -L). */
  earlierHeads?: ResponseHead[];
}
