export type GitErrorCode =
  | "AUTH_FAILED"
  | "NOT_FOUND"
  | "HOST_NOT_ALLOWED"
  | "HOST_KEY_CHANGED"
  | "DISK_FULL"
  | "CANCELLED"
  | "CONFLICT"
  | "WOULD_OVERWRITE"
  | "NOT_A_REPOSITORY"
  | "REJECTED"
  | "BAD_INPUT"
  | "TOO_LARGE"
  | "GIT_UNAVAILABLE"
  | "FAILED";

/** A git failure in words a person can act on; `detail` keeps git's own last lines. */
export class GitError extends Error {
  constructor(
    readonly code: GitErrorCode,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

const lastLines = (stderr: string) =>
  stderr
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(
      (l) =>
        l &&
        !/^(remote: )?(Counting|Compressing|Receiving|Resolving|Enumerating|Writing|Updating files|Total|Cloning into)/.test(
          l,
        ),
    )
    .slice(-4)
    .join("\n");

// Git says what went wrong only in English prose on stderr (LANG=C keeps it stable): these are the
// phrases of the failures people meet, mapped to what they can do about them.
export function describeGitFailure(command: string, stderr: string): GitError {
  const detail = lastLines(stderr);
  if (/No space left on device|Disk quota exceeded/i.test(stderr))
    return new GitError("DISK_FULL", "The server's disk is full: git could not write the files.", detail);
  // Before the authentication phrases: ssh refuses a changed host key before it offers a key.
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/i.test(stderr)) {
    return new GitError(
      "HOST_KEY_CHANGED",
      "The remote's ssh host key is not the one this project accepted the first time it connected: someone may be intercepting the connection (or the host changed its key). Nothing was sent.",
      detail,
    );
  }
  if (
    /Authentication failed|could not read (Username|Password)|told us to quit|terminal prompts disabled|HTTP 401|HTTP 403|Permission denied \(publickey/i.test(
      stderr,
    )
  ) {
    return new GitError(
      "AUTH_FAILED",
      "Authentication failed: the remote refused the credentials (or none were given). Check the token or ssh key stored for this host.",
      detail,
    );
  }
  if (/repository '.*' not found|Repository not found|does not appear to be a git repository|HTTP 404/i.test(stderr)) {
    return new GitError(
      "NOT_FOUND",
      "Repository not found: check the URL (and that your credentials may see it).",
      detail,
    );
  }
  if (
    /Could not resolve host|Failed to connect|Connection refused|Couldn't connect|Could not resolve proxy|Proxy CONNECT aborted|CONNECT tunnel failed|Received HTTP code 403 from proxy/i.test(
      stderr,
    )
  ) {
    return new GitError(
      "HOST_NOT_ALLOWED",
      "Could not reach the remote's host: it is not allowed by the project's network policy, or it is down.",
      detail,
    );
  }
  if (/Remote branch .* not found|couldn't find remote ref/i.test(stderr))
    return new GitError("NOT_FOUND", "That branch does not exist on the remote.", detail);
  if (
    /would be overwritten by (checkout|merge)|Your local changes .* would be overwritten|Please commit your changes or stash them/i.test(
      stderr,
    )
  ) {
    return new GitError(
      "WOULD_OVERWRITE",
      "Your uncommitted changes would be overwritten. Commit them or discard them first.",
      detail,
    );
  }
  if (/CONFLICT|Automatic merge failed|could not apply|Resolve all conflicts/i.test(stderr))
    return new GitError(
      "CONFLICT",
      "There are merge conflicts: resolve them in the editor, stage the files, then commit.",
      detail,
    );
  if (/\[rejected\]|failed to push some refs|non-fast-forward/i.test(stderr)) {
    return new GitError("REJECTED", "The remote has commits you do not have: pull first, then push again.", detail);
  }
  if (/not a git repository/i.test(stderr))
    return new GitError("NOT_A_REPOSITORY", "This project is not a git repository.", detail);
  return new GitError("FAILED", `git ${command} failed: ${detail || "no message"}`, detail);
}
