// Globs over workspace paths, for settings people and repositories write (hooks, language server
// file patterns): no regular expressions from outside, only these few forms.

/**
 * A glob as a regular expression: `**` any path (`**\/` also none), `*` anything but `/`, `?` one
 * character but `/`, `{a,b}` either; everything else literal. Built from short patterns only.
 */
export function globMatch(glob: string, text: string): boolean {
  let source = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "{") depth++, (source += "(?:");
    else if (c === "}" && depth > 0) depth--, (source += ")");
    else if (c === "," && depth > 0) source += "|";
    else source += c.replace(/[.+^$(){}|[\]\\]/g, "\\$&");
  }
  if (depth > 0) return false;
  return new RegExp(`^${source}$`).test(text);
}

/** A workspace path against a glob; a glob without a `/` matches the file's name anywhere (as .gitignore has it). */
export function pathMatches(glob: string, file: string): boolean {
  return globMatch(glob, glob.includes("/") ? file : (file.split("/").pop() ?? file));
}
