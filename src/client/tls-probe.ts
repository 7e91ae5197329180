/**
 * Tells "this port speaks HTTPS" from a plain connection reset, for a plain-HTTP request that was
 * cut off before any answer: a TLS server drops a plain request without a word, so the only way to
 * know is to try a TLS handshake with it. Runs on that failure path only; sends no request.
 * IMPORTANT: the handshake is not trusted for anything (no certificate check): it only answers
 * whether the port speaks TLS, and the connection is closed at once.
 */
import { isIP } from "node:net";

/** Whether a TLS handshake with host:port completes within `timeoutMs`. */
export async function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  const { connect } = await import("node:tls");
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      // SNI takes a host name, never an address.
      ...(isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}
