-- The group mapping a team was made for (server/db/repositories/teams.ts: findOrCreateMappedTeam).
-- Mapped teams used to be found by name, so anyone who made (or renamed) a team to a mapped name
-- owned the team the group's people were put in. A team's name now proves nothing.
ALTER TABLE "team" ADD COLUMN "ssoTeam" TEXT;
CREATE UNIQUE INDEX "team_ssoTeam_key" ON "team"("ssoTeam");

-- The teams mappings made before: none has its "team.created" event, which every team a person
-- makes has had since the audit log began (20261129035000), before its retention could purge
-- any. The oldest of each name, as the lookup by name took it.
UPDATE "team" SET "ssoTeam" = "name"
WHERE "id" IN (
  SELECT DISTINCT ON ("name") "id" FROM "team" t
  WHERE NOT t."personal"
    AND NOT EXISTS (SELECT 1 FROM "audit_event" a WHERE a."teamId" = t."id" AND a."action" = 'team.created')
  ORDER BY "name", "createdAt" ASC
);
