import { expect, it } from "vitest";
import { isLoopbackHost } from "./config";

it("knows loopback hosts", () => {
  expect(isLoopbackHost("127.0.0.1")).toBe(true);
  expect(isLoopbackHost("localhost")).toBe(true);
  expect(isLoopbackHost("0.0.0.0")).toBe(false);
});
