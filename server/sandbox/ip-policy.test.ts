import { describe, expect, it } from "vitest";
import { blockedReason } from "./ip-policy";

describe("blockedReason", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "100.127.255.254",
    "169.254.169.254",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "::1",
    "::",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:8.8.8.8",
    "::127.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
  ])("refuses %s", (ip) => {
    expect(blockedReason(ip)).not.toBeNull();
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "93.184.216.34",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "64:ff9b::808:808",
  ])("allows %s", (ip) => {
    expect(blockedReason(ip)).toBeNull();
  });
});

describe("blockedReason with an admin's internal hosts", () => {
  const allows = (address: string, host: string, entries: string[]) =>
    blockedReason(address, { host, entries }) === null;

  it("lets a range or a domain through for office addresses only", () => {
    expect(allows("10.20.3.4", "git.office.lan", ["10.20.0.0/16"])).toBe(true);
    expect(allows("10.21.3.4", "git.office.lan", ["10.20.0.0/16"])).toBe(false);
    expect(allows("fd00:1::5", "git.office.lan", ["fd00:1::/32"])).toBe(true);
    expect(allows("192.168.1.9", "git.office.lan", ["*.office.lan"])).toBe(true);
    expect(allows("192.168.1.9", "git.elsewhere.lan", ["*.office.lan"])).toBe(false);
    expect(allows("192.168.1.9", "git.office.lan", ["git.office.lan"])).toBe(true);
  });

  it("never lets loopback or metadata through a range or a domain, only an exact address or host", () => {
    expect(allows("127.0.0.2", "127.0.0.2", ["127.0.0.0/8"])).toBe(false);
    expect(allows("169.254.169.254", "metadata.office.lan", ["*.office.lan", "169.254.0.0/16", "0.0.0.0/0"])).toBe(
      false,
    );
    expect(allows("::1", "::1", ["::/0"])).toBe(false);
    expect(allows("127.0.0.2", "127.0.0.2", ["127.0.0.2"])).toBe(true);
    expect(allows("127.0.0.2", "127.0.0.2", ["127.0.0.3"])).toBe(false);
    expect(allows("127.0.0.1", "localhost", ["localhost"])).toBe(true);
  });

  it("lets a team's entries reach office addresses only, exact or not", () => {
    const team = (address: string, host: string, teamEntries: string[]) =>
      blockedReason(address, { host, entries: [], teamEntries }) === null;
    expect(team("10.20.3.4", "git.office.lan", ["10.20.0.0/16"])).toBe(true);
    expect(team("10.20.3.4", "git.office.lan", ["git.office.lan"])).toBe(true);
    expect(team("127.0.0.2", "127.0.0.2", ["127.0.0.2"])).toBe(false);
    expect(team("127.0.0.1", "localhost", ["localhost"])).toBe(false);
    expect(team("169.254.169.254", "169.254.169.254", ["169.254.169.254"])).toBe(false);
  });
});
