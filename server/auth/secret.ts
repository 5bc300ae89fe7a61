import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

// Without BETTER_AUTH_SECRET, a random secret is made once and kept in the data directory, so
// logins survive restarts and nobody has to edit an env file.
export async function loadOrCreateSecret(dataDir: string, configured?: string): Promise<string> {
  if (configured) return configured;
  const file = path.join(dataDir, "auth-secret");
  try {
    return (await fs.readFile(file, "utf8")).trim();
  } catch {
    const secret = randomBytes(32).toString("hex");
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(file, secret, { mode: 0o600, flag: "wx" }).catch(async () => undefined);
    return (await fs.readFile(file, "utf8")).trim();
  }
}
