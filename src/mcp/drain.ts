/** Count requests a transport has received but not yet answered, so the server can finish them before it stops. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export type RequestTracker = {
  /** Requests received and neither answered nor cancelled. */
  readonly pending: number;
  /** Resolves once every request received so far has been answered or cancelled. */
  idle(): Promise<void>;
};

type Id = string | number;

/** Wrap a connected transport's `onmessage` and `send` (call after `server.connect(transport)`). */
export function trackRequests(transport: Transport): RequestTracker {
  const open = new Set<Id>();
  let waiters: Array<() => void> = [];
  const settle = (id: Id | undefined) => {
    if (id === undefined || !open.delete(id) || open.size) return;
    const wake = waiters;
    waiters = [];
    for (const resolve of wake) resolve();
  };

  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: Id; method?: string; params?: { requestId?: Id } };
    if (m.method !== undefined && m.id !== undefined) open.add(m.id);
    // A cancelled request gets no reply (MCP spec), so stop waiting for it.
    if (m.method === "notifications/cancelled") settle(m.params?.requestId);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    const m = message as { id?: Id; method?: string };
    if (m.method === undefined) settle(m.id);
    return send(message, options);
  };

  return {
    get pending() {
      return open.size;
    },
    idle: () => (open.size ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
  };
}
