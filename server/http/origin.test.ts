import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { originAllowed } from "./origin";

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe("originAllowed", () => {
  it("allows same-origin browser requests and requests without Origin (scripts)", () => {
    expect(originAllowed(req({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }))).toBe(true);
    expect(originAllowed(req({ host: "127.0.0.1:3000" }))).toBe(true);
  });

  it("refuses other sites, look-alike hosts and garbage", () => {
    expect(originAllowed(req({ host: "127.0.0.1:3000", origin: "http://evil.example" }))).toBe(false);
    expect(originAllowed(req({ host: "tandem.example.com", origin: "https://tandem.example.com.evil.io" }))).toBe(
      false,
    );
    expect(originAllowed(req({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3001" }))).toBe(false);
    expect(originAllowed(req({ host: "127.0.0.1:3000", origin: "null" }))).toBe(false);
  });

  it("trusts the configured public URL behind a proxy", () => {
    const proxied = req({ host: "10.0.0.5:3000", origin: "https://tandem.example.com" });
    expect(originAllowed(proxied)).toBe(false);
    expect(originAllowed(proxied, "https://tandem.example.com")).toBe(true);
  });
});
