// What the egress proxy can honestly tell of a TLS handshake it only tunnels (CONNECT): it sees
// the records' five-byte headers, not their contents. A client that does not trust the server's
// certificate (behind a TLS-inspecting proxy whose CA it lacks) ends the handshake with an alert
// (plaintext, or encrypted in TLS 1.3), or just closes after the server's certificate (Node), or
// finishes the handshake and closes before its request (GnuTLS, which checks afterwards). One that
// trusts it sends its Finished and then its request: two encrypted records. The failure is told
// from that, without decrypting anything.

const HANDSHAKE = 22;
const ALERT = 21;
const CHANGE_CIPHER_SPEC = 20;
const APPLICATION_DATA = 23;
/** An encrypted alert is 2 bytes, its type and a 16-byte tag (19); anything longer is the client's Finished. */
const LONGEST_ENCRYPTED_ALERT = 24;
/** How many of the client's records are read before the handshake is taken as done (it is a few). */
const MOST_CLIENT_RECORDS = 32;

const ALERTS: Record<number, string> = {
  0: "close_notify",
  10: "unexpected_message",
  20: "bad_record_mac",
  40: "handshake_failure",
  42: "bad_certificate",
  43: "unsupported_certificate",
  44: "certificate_revoked",
  45: "certificate_expired",
  46: "certificate_unknown",
  47: "illegal_parameter",
  48: "unknown_ca",
  49: "access_denied",
  50: "decode_error",
  51: "decrypt_error",
  70: "protocol_version",
  71: "insufficient_security",
  80: "internal_error",
  86: "inappropriate_fallback",
  109: "missing_extension",
  112: "unrecognized_name",
  116: "certificate_required",
  120: "no_application_protocol",
};

const CERTIFICATE_HINT =
  "the client does not trust the server's certificate (behind a TLS-inspecting proxy, its CA must be trusted: the host's store, or TANDEM_EXTRA_CA_CERTS)";

export type TlsWatch = {
  /** Bytes the client sent into the tunnel. */
  client(chunk: Buffer): void;
  /** Bytes the server sent back. */
  server(chunk: Buffer): void;
  /** Whether there is nothing more to learn (the handshake completed, or this is not TLS). */
  readonly done: boolean;
  /** Why the handshake failed, once the tunnel closed; null when it completed or was not TLS. */
  failure(): string | null;
};

/** Reads record headers from a byte stream, calling back with each record's type, length and its first two bytes. */
function records(onRecord: (type: number, length: number, start: Buffer) => void) {
  let pending = Buffer.alloc(0);
  let skip = 0;
  return (chunk: Buffer) => {
    let data = chunk;
    if (skip >= data.length) {
      skip -= data.length;
      return;
    }
    data = data.subarray(skip);
    skip = 0;
    if (pending.length) data = Buffer.concat([pending, data]);
    pending = Buffer.alloc(0);
    while (data.length >= 5) {
      const type = data[0]!;
      const length = data.readUInt16BE(3);
      // An alert's two bytes are read with its header: wait for them.
      if (type === ALERT && data.length < 7) break;
      onRecord(type, length, data.subarray(5, 7));
      if (data.length < 5 + length) {
        skip = 5 + length - data.length;
        return;
      }
      data = data.subarray(5 + length);
    }
    pending = Buffer.from(data);
  };
}

export function watchTls(): TlsWatch {
  let tls: boolean | undefined;
  let completed = false;
  let clientRecords = 0;
  let serverBytes = 0;
  let changedCipher = false;
  /** The client's encrypted records: its Finished, then its request (or an alert in place of either). */
  let encrypted = 0;
  let lastEncryptedLength = 0;
  let alert: string | null = null;
  const describe = (who: string, start: Buffer) => {
    const code = start[1]!;
    const name = ALERTS[code] ?? `alert ${code}`;
    const certificate = code >= 42 && code <= 48;
    return `TLS handshake failed: the ${who} sent the alert ${name}${certificate && who === "client" ? `: ${CERTIFICATE_HINT}` : ""}`;
  };
  const fromClient = records((type, length, start) => {
    clientRecords++;
    if (tls === undefined) tls = type === HANDSHAKE;
    if (type === ALERT) alert ??= describe("client", start);
    else if (type === CHANGE_CIPHER_SPEC) changedCipher = true;
    else if (type === APPLICATION_DATA || (type === HANDSHAKE && changedCipher)) {
      encrypted++;
      lastEncryptedLength = length;
    }
    // After its Finished, a record longer than an alert is the client's request.
    if ((encrypted >= 2 && lastEncryptedLength > LONGEST_ENCRYPTED_ALERT) || clientRecords >= MOST_CLIENT_RECORDS)
      completed = true;
  });
  const fromServer = records((type, _length, start) => {
    if (type === ALERT) alert ??= describe("server", start);
  });
  const done = () => tls === false || completed || alert !== null;
  return {
    client: (chunk) => {
      if (!done()) fromClient(chunk);
    },
    server: (chunk) => {
      if (done()) return;
      serverBytes += chunk.length;
      fromServer(chunk);
    },
    get done() {
      return done();
    },
    failure() {
      if (!tls || completed) return null;
      if (alert) return alert;
      if (serverBytes === 0) return "TLS handshake failed: the server sent nothing back";
      if (encrypted === 0)
        return `TLS handshake failed: the client closed the connection after the server's certificate; most often ${CERTIFICATE_HINT}`;
      if (encrypted === 1 && lastEncryptedLength <= LONGEST_ENCRYPTED_ALERT)
        return `TLS handshake failed: the client ended it with an (encrypted) alert after the server's certificate; most often ${CERTIFICATE_HINT}`;
      return `TLS failed: the client closed the connection right after the handshake, before sending a request; most often ${CERTIFICATE_HINT}`;
    },
  };
}
