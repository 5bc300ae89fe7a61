import { describe, expect, it } from "vitest";
import { looksLikeCheck } from "@/lib/check-command";

describe("looksLikeCheck", () => {
  it.each([
    "npm test",
    "npm run test -- --watch=false",
    "npx vitest run src/a.test.ts",
    "pytest -q tests/",
    "python -m pytest",
    "go test ./...",
    "cargo clippy --all",
    "npx tsc --noEmit",
    "make check",
    "cd app && npm run lint",
    "./node_modules/.bin/jest",
  ])("takes %s for a check", (command) => expect(looksLikeCheck(command)).toBe(true));

  it.each(["ls -la", "cat test-data.json", "git status", "npm install", "echo testing", "rm -rf build", ""])(
    "does not take %s for one",
    (command) => expect(looksLikeCheck(command)).toBe(false),
  );
});
