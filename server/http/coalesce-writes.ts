import type { Duplex } from "node:stream";

// One tRPC WebSocket carries every subscription of a browser tab (several sessions' events,
// presence, file changes), and a streaming session sends a frame per token. Sent one by one, each
// frame is a write system call of its own; under load those calls were the largest single cost
// of streaming (bench:stream). So the socket is corked from its first write until the callback
// that wrote has finished, promises included (process.nextTick runs once the microtasks drained):
// everything that one arriving chunk of model output or one database answer produced leaves as
// one write, before the event loop moves on.
//
// It uncorks on the next tick, not at the loop's check phase (setImmediate), so no frame waits
// behind other I/O callbacks of the same iteration. When the peer or the network falls behind, the
// socket's own buffering takes over: while a write is pending, later frames queue and leave
// together in one writev when it completes.
export function coalesceWritesPerTask(socket: Duplex): void {
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
      process.nextTick(uncork);
    }
    return write(...args);
  }) as Duplex["write"];
}
