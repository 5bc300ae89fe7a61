import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { coalesceWritesPerTask } from "@/server/http/coalesce-writes";

/** A socket that records each write it is asked to make of the OS (one entry per system call a TCP socket would make). */
function recordingSocket() {
  const calls: string[][] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      calls.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      calls.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { socket, calls };
}

describe("coalesceWritesPerTask", () => {
  it("sends the frames one task wrote as one write, before the event loop moves on to other callbacks", async () => {
    const { socket, calls } = recordingSocket();
    coalesceWritesPerTask(socket);
    let beforeNextCallback: string[][] = [];
    const otherCallback = new Promise<void>((resolve) =>
      setImmediate(() => {
        beforeNextCallback = calls.map((c) => [...c]);
        resolve();
      }),
    );
    // As a delta reaches a viewer: frames written from promise callbacks of one task.
    await Promise.resolve().then(() => socket.write("frame 1"));
    await Promise.resolve().then(() => socket.write("frame 2"));
    await otherCallback;
    expect(beforeNextCallback).toEqual([["frame 1", "frame 2"]]);
  });

  it("sends a later task's frames in a write of their own, without waiting for more", async () => {
    const { socket, calls } = recordingSocket();
    coalesceWritesPerTask(socket);
    socket.write("first");
    await new Promise((resolve) => setImmediate(resolve));
    socket.write("second");
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([["first"], ["second"]]);
  });
});
