import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CheckedTarget } from './address-guard.ts';

/** What a receiver answered, or why nothing was answered. */
export interface PostResult {
  /** The HTTP status; null when no response came (timeout, refused, reset). */
  status: number | null;
  /** The start of the response body (RESPONSE_BODY_KEPT characters at most). */
  body: string;
  error?: string;
}

/** Characters of a receiver's answer kept in the delivery log. */
export const RESPONSE_BODY_KEPT = 1024;

/** Posts one signed payload to a checked address; injected in tests. */
export type Connector = (
  target: CheckedTarget,
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<PostResult>;

/**
 * The connector of both runtimes: connects to the checked address (a `lookup` that answers only
 * it, so the name is never resolved again), with the host name for TLS and the Host header.
 * Redirects are not followed (node:http never does): a 3xx is a failed attempt. The whole exchange
 * must end within the timeout; only the start of the answer is read.
 */
export const nodeConnector: Connector = (target, { headers, body, timeoutMs }) =>
  new Promise((settle) => {
    const { url, address } = target;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let done = false;
    const finish = (result: PostResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      settle(result);
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        // Answers only the checked address. Node asks in either form: with `all` (Node 20 and
        // later connect with autoSelectFamily, so every connection to a host name does) it wants
        // a list; without, one address and its family.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all)
            (callback as (e: null, addresses: { address: string; family: number }[]) => void)(null, [
              { address: address.address, family: address.family },
            ]);
          else
            (callback as (e: null, address: string, family: number) => void)(
              null,
              address.address,
              address.family,
            );
        },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < RESPONSE_BODY_KEPT) text += chunk;
          if (text.length >= RESPONSE_BODY_KEPT)
            finish({ status: res.statusCode ?? null, body: text.slice(0, RESPONSE_BODY_KEPT) });
        });
        res.on('end', () =>
          finish({ status: res.statusCode ?? null, body: text.slice(0, RESPONSE_BODY_KEPT) }),
        );
        res.on('error', (error) =>
          finish({ status: res.statusCode ?? null, body: text, error: error.message }),
        );
      },
    );
    const timer = setTimeout(
      () => finish({ status: null, body: '', error: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on('error', (error) => finish({ status: null, body: '', error: error.message }));
    req.end(body);
  });
