/**
 * A real SMTP server process for the email tests (smtp-server). It prints one
 * JSON line per event on stdout: {"listening": port}, then {"at", "to",
 * "accepted", "code"?, "messageId"?, "headers"?, "text"?} per delivery attempt.
 *
 * Behaviour by the recipient's local part (tests pick it through the sign-up name):
 *   tempfail…  the first two DATA attempts answer 451, then 250
 *   permfail…  RCPT TO answers 550
 *   anything else: 250
 *
 * Usage: node --import tsx tests/smtp-sink.ts <port>
 */
import { SMTPServer } from "smtp-server";

const port = Number(process.argv[2]);
const tempfails = new Map<string, number>();

const print = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: Date.now(), ...o })}\n`);

/** Headers (unfolded, names lower-cased) and the text/plain part, quoted-printable decoded. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).toLowerCase()] ??= line.slice(i + 1).trim();
  }
  const body = raw.slice(split + 4);
  const start = body.search(/Content-Type: text\/plain/i);
  let text = body;
  if (start >= 0) {
    const part = body.slice(start);
    const partBody = part.slice(part.indexOf("\r\n\r\n") + 4);
    // The next MIME boundary; "-- " (quoted-printable "--=20") on its own line is the signature separator, not one.
    const end = partBody.search(/\r\n--(?!( |=20)\r\n)/);
    text = end >= 0 ? partBody.slice(0, end) : partBody;
    if (/Content-Transfer-Encoding: quoted-printable/i.test(part.slice(0, part.indexOf("\r\n\r\n")))) {
      const bytes = text
        .replace(/=\r\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      text = Buffer.from(bytes, "latin1").toString("utf8");
    }
  }
  return { headers, text };
}

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address.startsWith("permfail")) {
      print({ to: address.address, accepted: false, code: 550 });
      const err = new Error("No such user here") as Error & { responseCode: number };
      err.responseCode = 550;
      return callback(err);
    }
    callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const to = session.envelope.rcptTo.map((r) => r.address).join(",");
      const { headers, text } = parseMessage(Buffer.concat(chunks).toString("latin1"));
      if (to.startsWith("tempfail")) {
        const seen = tempfails.get(to) ?? 0;
        tempfails.set(to, seen + 1);
        if (seen < 2) {
          print({ to, accepted: false, code: 451, messageId: headers["message-id"] });
          const err = new Error("Try again later") as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
      }
      print({ to, accepted: true, messageId: headers["message-id"], headers, text });
      callback();
    });
  },
});

server.listen(port, "127.0.0.1", () => print({ listening: port }));
for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => server.close(() => process.exit(0)));
