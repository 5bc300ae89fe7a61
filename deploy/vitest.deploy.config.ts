import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `npm run test:deploy` (scripts/test-deploy.mjs): the tests that run deploy/'s image, compose
// file and Kubernetes manifests with podman. Not part of `npm test` (vitest.config.ts takes only
// *.test.ts): they need root, podman and a built image, and take most of half an hour.
const alias = { "@": fileURLToPath(new URL("..", import.meta.url)) };

export default defineConfig({
  resolve: { alias },
  test: {
    root: fileURLToPath(new URL("..", import.meta.url)),
    include: ["deploy/*.deploy.ts"],
    environment: "node",
    pool: "forks",
    // One cluster at a time: the files share the machine's two cores with the containers.
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
