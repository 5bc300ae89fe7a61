// Where a git remote lives, for browser and server alike: the server decides network access and
// which credential to send from it, the clone form which credentials to offer.

// git's scp-like form, `[user@]host:path` (a colon before any slash), as git's connect.c reads it.
const SCP_LIKE = /^(?:([^@/\s]+)@)?([a-z0-9][a-z0-9.-]*):(?!\/\/)(\S+)$/i;

/**
 * A remote as a URL for deciding its host, port and user: https as is; ssh:// with port 22
 * dropped (so `host` matches a credential's host); the scp-like form as the ssh:// URL of the same
 * host (git itself keeps using the original string, whose path may be relative to the login's home).
 * Null for anything else (local paths, file://, git://, ext::).
 */
export function parseRemoteUrl(raw: string): URL | null {
  const scp = SCP_LIKE.exec(raw.trim());
  if (scp && !raw.includes("://")) {
    const [, user, host, repoPath] = scp;
    return parseRemoteUrl(`ssh://${user ? `${user}@` : ""}${host}/${repoPath!.replace(/^\/+/, "")}`);
  }
  try {
    const url = new URL(raw.trim());
    if (url.protocol === "ssh:") {
      if (!/^[a-z0-9]/i.test(url.hostname)) return null;
      if (url.port === "22") url.port = "";
      return url;
    }
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

export const isSshRemote = (url: URL) => url.protocol === "ssh:";

/** The remote's web address (for pull request links): an ssh remote's host over https. */
export function webAddress(url: URL): string {
  return isSshRemote(url) ? `https://${url.hostname}${url.pathname.replace(/^\/~\//, "/")}` : url.origin + url.pathname;
}
