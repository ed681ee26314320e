// Who the gateway says it is to an upstream server, and what it can route back (as the
// old-era client declares). Its own module: the old-era path needs these and nothing of the
// SDK v2 client (new-era-client.ts), which loads only when an HTTP upstream is probed.
export const GATEWAY_CLIENT_INFO = { name: 'gatehouse', version: '0.1.0' };
export const GATEWAY_UPSTREAM_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
