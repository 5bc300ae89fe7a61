-- Secrets of a project, a team or a person, sealed with the server's key (issue 42).
CREATE TABLE "secret" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "projectId" TEXT,
    "teamId" TEXT,
    "userId" TEXT,
    "keyId" TEXT NOT NULL,
    "secret" BYTEA NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "secret_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "secret_projectId_name_key" ON "secret"("projectId", "name");
CREATE UNIQUE INDEX "secret_teamId_name_key" ON "secret"("teamId", "name");
CREATE UNIQUE INDEX "secret_userId_name_key" ON "secret"("userId", "name");

ALTER TABLE "secret" ADD CONSTRAINT "secret_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "secret" ADD CONSTRAINT "secret_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "secret" ADD CONSTRAINT "secret_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;
