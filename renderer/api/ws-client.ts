// The host API over the headless shell's WebSocket (main/web/server.ts). The browser sends the
// session cookie and its Origin with the upgrade; nothing here handles a secret.
//
// Calls made while the socket is down wait for the next connection; calls in flight when it
// drops fail with "connection lost" (the host may or may not have run them). The socket
// reconnects with capped exponential backoff and jitter; listen with `onConnectionChange` and
// re-fetch `host:snapshot` when `reconnected` is true.
import {
  WsServerMessageSchema,
  type CommandInput,
  type CommandName,
  type CommandOutput,
  type EventName,
  type EventPayload,
} from '../../common/host-api';
import type { ConnectedHostApi, ConnectionInfo } from './connection';

export interface WsHostApiOptions {
  /** First retry delay; doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** For tests: the WebSocket constructor. */
  WebSocketImpl?: typeof WebSocket;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** Sent on a socket (fails if that socket drops); otherwise waiting in the queue. */
  sent: boolean;
}

export function defaultApiUrl(): string {
  // globalThis, not window: this file also runs under Node in tests/integration/ws-client.test.ts.
  const { protocol, host } = (globalThis as unknown as { location: { protocol: string; host: string } }).location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/api`;
}

export function createWsHostApi(url: string = defaultApiUrl(), opts: WsHostApiOptions = {}): ConnectedHostApi {
  const Impl = opts.WebSocketImpl ?? WebSocket;
  const initialDelay = opts.initialDelayMs ?? 250;
  const maxDelay = opts.maxDelayMs ?? 5_000;
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(info: ConnectionInfo) => void>();
  const pending = new Map<number, Pending>();
  let queue: Array<{ id: number; text: string }> = [];
  let nextId = 1;
  let socket: WebSocket | undefined;
  let info: ConnectionInfo = { state: 'connecting', reconnected: false, attempts: 0 };
  let everOpened = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const setInfo = (next: ConnectionInfo) => {
    info = next;
    for (const l of [...connectionListeners]) {
      try {
        l(info);
      } catch (err) {
        console.error('gatehouse: a connection listener threw', err);
      }
    }
  };

  const connect = () => {
    if (closed) return;
    const ws = new Impl(url);
    socket = ws;
    ws.onopen = () => {
      const reconnected = everOpened;
      everOpened = true;
      setInfo({ state: 'open', reconnected, attempts: 0 });
      const waiting = queue;
      queue = [];
      for (const { id, text } of waiting) {
        const p = pending.get(id);
        if (!p) continue;
        p.sent = true;
        ws.send(text);
      }
    };
    ws.onmessage = (e: { data: unknown }) => {
      let msg;
      try {
        msg = WsServerMessageSchema.parse(JSON.parse(String(e.data)));
      } catch {
        console.error('gatehouse: unexpected message from the host');
        return;
      }
      if (msg.type === 'event') {
        for (const l of [...(listeners.get(msg.event) ?? [])]) {
          try {
            l(msg.payload);
          } catch (err) {
            console.error(`gatehouse: a ${msg.event} listener threw`, err);
          }
        }
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.output);
      else p.reject(new Error(msg.error));
    };
    // A failed connection also fires close, which is where it is handled.
    ws.onerror = () => {};
    ws.onclose = (e: { code: number; reason: string }) => {
      if (socket !== ws) return;
      socket = undefined;
      // Calls this socket carried may or may not have run: they fail. Queued ones wait on.
      for (const [id, p] of pending) {
        if (!p.sent) continue;
        pending.delete(id);
        p.reject(new Error('connection to the Gatehouse host lost'));
      }
      if (closed) return;
      const attempts = info.state === 'open' ? 1 : info.attempts + 1;
      const reason = e.reason || (e.code === 1006 ? 'connection refused or lost (is gatehouse serve running, and are you logged in?)' : `closed (${e.code})`);
      setInfo({ state: 'connecting', reconnected: false, attempts, reason });
      const delay = Math.min(maxDelay, initialDelay * 2 ** Math.min(attempts - 1, 10));
      timer = setTimeout(connect, delay * (0.75 + Math.random() * 0.5));
    };
  };

  const api: ConnectedHostApi = {
    transport: 'websocket',
    call<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>> {
      if (closed) return Promise.reject(new Error('the host API client is closed'));
      const id = nextId++;
      const text = JSON.stringify({ type: 'call', id, command, input });
      return new Promise<CommandOutput<C>>((resolve, reject) => {
        const open = !!socket && socket.readyState === Impl.OPEN;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, sent: open });
        if (open) socket!.send(text);
        else queue.push({ id, text });
      });
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => {
        set.delete(l);
      };
    },
    connection: () => info,
    onConnectionChange(listener) {
      connectionListeners.add(listener);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      socket?.close(1000, 'closed by the app');
      socket = undefined;
      for (const [, p] of pending) p.reject(new Error('the host API client is closed'));
      pending.clear();
      queue = [];
      setInfo({ state: 'closed', reconnected: false, attempts: 0, reason: 'closed by the app' });
    },
  };
  connect();
  return api;
}
