// Whether a shell command the agent ran is a test or a check (a test runner, a type checker, a
// linter, a build's check target): the sessions board shows the last one and whether it passed.
// A guess from the command's words, good enough for a glance; it never decides anything.

const RUNNERS = [
  "test",
  "tests",
  "jest",
  "vitest",
  "mocha",
  "ava",
  "playwright",
  "cypress",
  "pytest",
  "tox",
  "nox",
  "unittest",
  "rspec",
  "phpunit",
  "ctest",
  "tsc",
  "eslint",
  "biome",
  "prettier",
  "ruff",
  "mypy",
  "pyright",
  "flake8",
  "pylint",
  "clippy",
  "golangci-lint",
  "shellcheck",
  "rubocop",
  "check",
  "lint",
  "typecheck",
  "type-check",
];

const WORD = new RegExp(`(^|[\\s/:;&|(])(${RUNNERS.map((w) => w.replace(/[-]/g, "\\-")).join("|")})(?=$|[\\s:;&|)])`);

/** Whether the command looks like a test or a check. */
export function looksLikeCheck(command: string): boolean {
  const text = command.trim();
  if (!text || text.length > 2_000) return false;
  return WORD.test(text) || /\b(go|cargo|dotnet|mix|swift|zig|deno|bun) (test|check|vet)\b/.test(text);
}
