// Bench-only: the gateway's real http-endpoint.ts, built with its SDK server transport swapped
// for the lean one (bench/run.mjs redirects that one import here with an esbuild plugin). This
// measures exactly what the switch in http-endpoint.ts would give, without editing it.
export { LeanStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '../main/gateway/lean-http-transport';
