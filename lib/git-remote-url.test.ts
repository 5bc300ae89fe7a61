import { describe, expect, it } from "vitest";
import { parseRemoteUrl, webAddress } from "./git-remote-url";
import { gitUrl } from "./git-schemas";

describe("git remote URLs", () => {
  const accepted = (url: string) => gitUrl.safeParse(url).success;

  it("takes https, ssh:// and scp-like ssh addresses of a repository", () => {
    expect(
      [
        "https://github.com/o/r.git",
        "http://127.0.0.1:3000/app.git",
        "git@github.com:o/r.git",
        "ssh://git@h.test:2222/app.git",
        "host:repo.git",
      ].filter((u) => !accepted(u)),
    ).toEqual([]);
  });

  it("refuses what would hide a secret in the URL, reach local files or start a program", () => {
    const refused = [
      "https://github.com",
      "https://user:token@github.com/o/r",
      "ssh://git:pw@h/x",
      "file:///etc/passwd",
      "/local/path",
      "ext::sh -c touch% /tmp/x",
      "-oProxyCommand=x:y",
      "ssh://-oProxyCommand=x/y",
      "git://h/x",
    ];
    expect(refused.filter(accepted)).toEqual([]);
  });

  it("names an scp-like remote's host and login as ssh does, and its web address for links", () => {
    const url = parseRemoteUrl("git@github.com:owner/repo.git")!;
    expect([url.protocol, url.username, url.host, url.pathname]).toEqual([
      "ssh:",
      "git",
      "github.com",
      "/owner/repo.git",
    ]);
    expect(parseRemoteUrl("ssh://git@gitlab.com:22/a/b.git")!.host).toBe("gitlab.com");
    expect(parseRemoteUrl("ssh://git@git.acme.dev:2222/a/b.git")!.host).toBe("git.acme.dev:2222");
    expect(webAddress(url)).toBe("https://github.com/owner/repo.git");
  });
});
