import { describe, expect, it } from "vitest";
import { listeningPorts } from "./listening-ports";

const HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

describe("listeningPorts", () => {
  it("keeps listening sockets only, each port once, and hides the ones asked", () => {
    const tcp =
      HEADER +
      "   0: 0100007F:0C38 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n" +
      "   1: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1\n" +
      "   2: 0100007F:E57E 0100007F:1435 01 00000001:00000000 01:00000013 00000000  1000        0 0 3\n" +
      "   3: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 3 1\n";
    const tcp6 =
      HEADER +
      "   0: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 0 0 0 0 0 4 1\n" +
      "   1: 00000000000000000000000000000000:1435 00000000000000000000000000000000:0000 0A 0 0 0 0 0 5 1\n";
    expect(listeningPorts([tcp, tcp6], [3128])).toEqual([
      { port: 3000, address: "loopback", inode: "4" },
      { port: 5173, address: "any", inode: "5" },
      { port: 8080, address: "any", inode: "3" },
    ]);
  });

  it("reads nothing from empty or garbled tables", () => {
    expect(listeningPorts(["", "garbage\nmore garbage 0A"])).toEqual([]);
  });
});
