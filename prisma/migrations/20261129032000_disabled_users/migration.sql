-- An admin can disable an account (issue 41): its logins and tokens stop at once.
ALTER TABLE "user" ADD COLUMN "disabledAt" TIMESTAMP(3);
