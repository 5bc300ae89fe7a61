import type { Duplex } from "node:stream";

// One tRPC WebSocket carries every subscription of a browser tab (several sessions' events,
// presence, file changes), and a streaming session sends a frame per token. Sent one by one, each
// frame is a write system call of its own; under load those calls were the largest single cost
// of streaming (bench:stream). Corking the socket from its first write until the event loop's
// check phase sends everything queued in this turn of the loop as one write, and adds no wait:
// the frames leave as soon as the callbacks that produced them have run.
export function coalesceWritesPerTurn(socket: Duplex): void {
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    return write(...args);
  }) as Duplex["write"];
}
