import { parseRemoteUrl } from "@/lib/git-remote-url";
import { GitError } from "./errors";

export function requireRemoteUrl(raw: string, name: string): URL {
  const url = parseRemoteUrl(raw);
  if (!url)
    throw new GitError(
      "BAD_INPUT",
      `The remote '${name}' (${raw}) is neither an https nor an ssh URL: Tandem fetches and pushes over https and ssh only.`,
    );
  return url;
}
