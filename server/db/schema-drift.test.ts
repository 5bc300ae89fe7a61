import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { readMigrations } from "./migrate";
import { databaseShape, diffShapes, expectedShape, type DbShape } from "./schema-shape";

// Proves that the hand-written migrations under prisma/migrations build exactly the database that
// prisma/schema.prisma describes: tables, columns (type, nullability, default), primary keys,
// unique and plain indexes, foreign keys and enums, named as Prisma names them, and nothing more.
// It is driven by whatever schema.prisma holds; see schema-shape/ for how each side is read.
// When it fails, each line says what the schema wants and what the database has: fix the
// migration SQL (in a new migration if the old one was already applied anywhere).

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function database(options: { migrate?: boolean } = {}) {
  const db = await createTestDatabase(options);
  cleanups.push(() => db.drop());
  return db;
}

async function sql(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

let expected: DbShape;
beforeAll(async () => {
  expected = expectedShape(await fs.readFile(path.resolve("prisma/schema.prisma"), "utf8"));
});

describe("schema drift", () => {
  it("the migrated database matches prisma/schema.prisma exactly", async () => {
    const { url } = await database();
    const differences = diffShapes(expected, await databaseShape(url));
    expect(differences, `migrations differ from schema.prisma:\n  ${differences.join("\n  ")}`).toEqual([]);
  });

  it("records every migration in _prisma_migrations", async () => {
    const { url } = await database();
    const migrations = await readMigrations(path.resolve("prisma/migrations"));
    const rows = await sql(url, `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
    expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
  });

  it("reports each kind of drift precisely (keeps the first test honest)", async () => {
    const { url } = await database();
    await sql(
      url,
      `ALTER TABLE "project" ALTER COLUMN "name" DROP NOT NULL;
       DROP INDEX "project_ownerId_idx";
       ALTER TABLE "project" ADD COLUMN "archived" BOOLEAN;
       CREATE INDEX "project_name_idx" ON "project"("name");
       ALTER TABLE "user" ALTER COLUMN "role" SET DEFAULT 'member';
       ALTER TABLE "user" ALTER COLUMN "image" SET NOT NULL;
       ALTER TABLE "rate_limit" ALTER COLUMN "count" TYPE BIGINT;
       DROP INDEX "user_email_key";
       CREATE INDEX "user_email_key" ON "user"("email");
       ALTER TABLE "project" DROP CONSTRAINT "project_ownerId_fkey";
       ALTER TABLE "project" ADD CONSTRAINT "project_ownerId_fkey" FOREIGN KEY ("ownerId")
         REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
       DROP TABLE "verification";
       CREATE TABLE "stray" ("id" TEXT PRIMARY KEY);`,
    );
    expect(diffShapes(expected, await databaseShape(url))).toEqual([
      "column project.name: schema says NOT NULL, database allows NULL",
      "column project.archived exists in database but not in schema",
      "index project_ownerId_idx missing in database",
      "index project_name_idx on project(name) exists in database but not in schema",
      "foreign key project_ownerId_fkey: schema says ON DELETE CASCADE, database has ON DELETE RESTRICT",
      "column rate_limit.count: schema says type integer, database has bigint",
      "column user.image: schema says nullable, database has NOT NULL",
      "column user.role: schema says default 'user', database has default 'member'",
      "index user_email_key: schema says unique index, database has index",
      "table verification missing in database",
      "table stray exists in database but not in schema",
    ]);
  });

  it("understands schema features the project does not use yet", async () => {
    // A schema using enums, lists, native types, composite and renamed keys, custom index names,
    // sort orders, hash indexes, referential actions, literal defaults and an implicit
    // many-to-many relation, and the SQL Prisma Migrate generates for it. No differences expected.
    const schema = `
      datasource db {
        provider = "postgresql"
      }
      enum Role {
        ADMIN
        MEMBER @map("member")
        @@map("role")
      }
      model Team {
        id        Int      @id @default(autoincrement())
        slug      String   @db.VarChar(40) @map("team_slug")
        big       BigInt   @default(-5)
        price     Decimal  @default(1.50)
        ratio     Float?   @default(0.5)
        tags      String[] @default(["a", "it's"])
        scores    Int[]
        role      Role     @default(MEMBER)
        roles     Role[]
        settings  Json     @default("{\\"dark\\": true}")
        blob      Bytes?
        key       String   @default(uuid()) @unique(map: "team_key_unique")
        external  String   @default(dbgenerated("gen_random_uuid()")) @db.Uuid
        startsAt  DateTime @default("2020-01-02T03:04:05Z") @db.Timestamptz(6)
        changedAt DateTime @updatedAt
        active    Boolean  @default(true)
        members   Member[]
        tagsRel   Label[]
        ownLabels Label[]  @relation("owner")
        @@unique([slug, big])
        @@index([big(sort: Desc), slug], map: "team_custom_idx")
        @@index([ratio], type: Hash)
        @@map("team")
      }
      model Member {
        teamId Int
        userId String
        note   String? @db.Text
        team   Team    @relation(fields: [teamId], references: [id], onUpdate: NoAction, map: "member_team_custom_fk")
        @@id([teamId, userId])
      }
      model Label {
        name        String @id
        teams       Team[]
        ownerTeamId Int?
        ownerTeam   Team?  @relation("owner", fields: [ownerTeamId], references: [id])
      }`;
    const migration = `
      CREATE TYPE "role" AS ENUM ('ADMIN', 'member');
      CREATE TABLE "team" (
          "id" SERIAL NOT NULL,
          "team_slug" VARCHAR(40) NOT NULL,
          "big" BIGINT NOT NULL DEFAULT -5,
          "price" DECIMAL(65,30) NOT NULL DEFAULT 1.50,
          "ratio" DOUBLE PRECISION DEFAULT 0.5,
          "tags" TEXT[] DEFAULT ARRAY['a', 'it''s']::TEXT[],
          "scores" INTEGER[],
          "role" "role" NOT NULL DEFAULT 'member',
          "roles" "role"[],
          "settings" JSONB NOT NULL DEFAULT '{"dark": true}',
          "blob" BYTEA,
          "key" TEXT NOT NULL,
          "external" UUID NOT NULL DEFAULT gen_random_uuid(),
          "startsAt" TIMESTAMPTZ(6) NOT NULL DEFAULT '2020-01-02 03:04:05 +00:00',
          "changedAt" TIMESTAMP(3) NOT NULL,
          "active" BOOLEAN NOT NULL DEFAULT true,
          CONSTRAINT "team_pkey" PRIMARY KEY ("id")
      );
      CREATE TABLE "Member" (
          "teamId" INTEGER NOT NULL,
          "userId" TEXT NOT NULL,
          "note" TEXT,
          CONSTRAINT "Member_pkey" PRIMARY KEY ("teamId","userId")
      );
      CREATE TABLE "Label" (
          "name" TEXT NOT NULL,
          "ownerTeamId" INTEGER,
          CONSTRAINT "Label_pkey" PRIMARY KEY ("name")
      );
      CREATE TABLE "_LabelToTeam" (
          "A" TEXT NOT NULL,
          "B" INTEGER NOT NULL,
          CONSTRAINT "_LabelToTeam_AB_pkey" PRIMARY KEY ("A","B")
      );
      CREATE UNIQUE INDEX "team_key_unique" ON "team"("key");
      CREATE UNIQUE INDEX "team_team_slug_big_key" ON "team"("team_slug", "big");
      CREATE INDEX "team_custom_idx" ON "team"("big" DESC, "team_slug");
      CREATE INDEX "team_ratio_idx" ON "team" USING HASH ("ratio");
      CREATE INDEX "_LabelToTeam_B_index" ON "_LabelToTeam"("B");
      ALTER TABLE "Member" ADD CONSTRAINT "member_team_custom_fk" FOREIGN KEY ("teamId") REFERENCES "team"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
      ALTER TABLE "Label" ADD CONSTRAINT "Label_ownerTeamId_fkey" FOREIGN KEY ("ownerTeamId") REFERENCES "team"("id") ON DELETE SET NULL ON UPDATE CASCADE;
      ALTER TABLE "_LabelToTeam" ADD CONSTRAINT "_LabelToTeam_A_fkey" FOREIGN KEY ("A") REFERENCES "Label"("name") ON DELETE CASCADE ON UPDATE CASCADE;
      ALTER TABLE "_LabelToTeam" ADD CONSTRAINT "_LabelToTeam_B_fkey" FOREIGN KEY ("B") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;`;
    const { url } = await database({ migrate: false });
    await sql(url, migration);
    expect(diffShapes(expectedShape(schema), await databaseShape(url))).toEqual([]);

    await sql(
      url,
      `ALTER TABLE "team" ALTER COLUMN "tags" SET DEFAULT ARRAY['a']::TEXT[];
       ALTER TABLE "team" ALTER COLUMN "startsAt" SET DEFAULT '2021-01-01T00:00:00Z';
       ALTER TYPE "role" ADD VALUE 'OWNER';
       DROP INDEX "team_custom_idx";
       CREATE INDEX "team_custom_idx" ON "team"("big", "team_slug");`,
    );
    expect(diffShapes(expectedShape(schema), await databaseShape(url))).toEqual([
      "enum role: schema says values (ADMIN, member), database has (ADMIN, member, OWNER)",
      "column team.tags: schema says default ARRAY['a', 'it''s'], database has default ARRAY['a']",
      "column team.startsAt: schema says default '2020-01-02T03:04:05.000Z', database has default '2021-01-01T00:00:00.000Z'",
      "index team_custom_idx: schema says columns (big DESC, team_slug), database has (big, team_slug)",
    ]);
  });
});
