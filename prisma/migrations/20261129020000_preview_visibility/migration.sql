-- Per-port preview visibility and public preview links (issue 36).
CREATE TABLE "preview_port" (
    "projectId" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "preview_port_pkey" PRIMARY KEY ("projectId","port")
);

CREATE TABLE "preview_link" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdById" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "preview_link_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "preview_link_tokenHash_key" ON "preview_link"("tokenHash");

CREATE INDEX "preview_link_projectId_port_idx" ON "preview_link"("projectId", "port");

ALTER TABLE "preview_port" ADD CONSTRAINT "preview_port_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "preview_link" ADD CONSTRAINT "preview_link_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
