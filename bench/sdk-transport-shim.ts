// Bench-only: the gateway's real http-endpoint.ts, built with the SDK's own Streamable HTTP
// server transport in place of the lean one (bench/run.mjs redirects that one import here), so
// one run shows what the lean transport buys.
export { StreamableHTTPServerTransport as LeanStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
