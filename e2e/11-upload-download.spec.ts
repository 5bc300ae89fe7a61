import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import yauzl from "yauzl";
import type { Page } from "@playwright/test";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { ReviewPage } from "./pages/review";
import { rawZip } from "../server/test/zip-bytes";

type Tree = { [name: string]: string | Tree };

/**
 * Drops `tree` on `selector` as a folder dropped from the desktop: a real DragEvent whose
 * dataTransfer hands out directory entries the way Chromium does for a dropped folder
 * (webkitGetAsEntry → createReader().readEntries in batches → file()), since Playwright cannot
 * drive the operating system's drag and drop.
 */
async function dropFolder(page: Page, selector: string, name: string, tree: Tree) {
  await page.evaluate(
    ({ selector, name, tree }) => {
      type T = { [n: string]: string | T };
      const entry = (entryName: string, node: string | T): unknown =>
        typeof node === "string"
          ? {
              name: entryName,
              isFile: true,
              isDirectory: false,
              file: (ok: (f: File) => void) => ok(new File([node], entryName)),
            }
          : {
              name: entryName,
              isFile: false,
              isDirectory: true,
              createReader() {
                let given = false;
                return {
                  readEntries: (ok: (e: unknown[]) => void) =>
                    ok(given ? [] : ((given = true), Object.entries(node).map(([n, child]) => entry(n, child)))),
                };
              },
            };
      const root = entry(name, tree);
      const dataTransfer = {
        types: ["Files"],
        files: [],
        items: [{ kind: "file", webkitGetAsEntry: () => root }],
        dropEffect: "copy",
      };
      const target = document.querySelector(selector)!;
      for (const type of ["dragover", "drop"]) {
        const event = new DragEvent(type, { bubbles: true, cancelable: true });
        Object.defineProperty(event, "dataTransfer", { value: dataTransfer });
        target.dispatchEvent(event);
      }
    },
    { selector, name, tree },
  );
}

async function unzip(file: string): Promise<Record<string, string>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out[entry.fileName] = Buffer.concat(chunks).toString();
  }
  return out;
}

const site: Tree = {
  "index.html": "<h1>Hello</h1>\n",
  css: { "app.css": "body { margin: 0; }\n" },
  js: { "app.js": "console.log(1);\n" },
};

test("a folder dropped on the explorer is uploaded with its structure; dropping it again asks, and keeps both", async ({
  page,
  ide,
}) => {
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Uploads");

  await dropFolder(page, "[data-testid=file-tree]", "site", site);
  await expect(page.getByTestId("upload").first()).toHaveAttribute("data-state", "done");
  await expect(ide.treeItem("site")).toBeVisible();
  await files.expectFile("site/index.html", "<h1>Hello</h1>\n");
  await files.expectFile("site/css/app.css", "body { margin: 0; }\n");
  await files.expectFile("site/js/app.js", "console.log(1);\n");
  await page.screenshot({ path: screenshotPath("upload-done") });

  // The same folder again: the name is taken, so Tandem asks.
  await dropFolder(page, "[data-testid=file-tree]", "site", { "index.html": "<h1>Second</h1>\n" });
  const ask = page.getByTestId("upload-conflict");
  await expect(ask).toContainText("'site' already exists");
  await page.screenshot({ path: screenshotPath("upload-conflict") });
  await ask.getByTestId("upload-keep-both").click();
  await expect(ide.treeItem("site (1)")).toBeVisible();
  await files.expectFile("site (1)/index.html", "<h1>Second</h1>\n");
  await files.expectFile("site/index.html", "<h1>Hello</h1>\n");

  // Dropped on a folder's row: into that folder; replace overwrites.
  await dropFolder(page, '[data-testid="tree-item-site"]', "css", { "app.css": "body { margin: 1px; }\n" });
  await page.getByTestId("upload-replace").click();
  await files.expectFile("site/css/app.css", "body { margin: 1px; }\n");

  // "Upload Files…" from the context menu, with the file picker.
  await ide.treeItem("site").click({ button: "right" });
  const chooser = page.waitForEvent("filechooser");
  await page.getByTestId("menu-upload-files").click();
  await (await chooser).setFiles([{ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# notes\n") }]);
  await files.expectFile("site/notes.md", "# notes\n");
});

test("a folder and the whole project download as zips holding what the explorer shows", async ({ page, ide }) => {
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await ide.createProject("Downloads");
  // What the upload test leaves behind.
  await files.writeFile("site/index.html", "<h1>Hello</h1>\n");
  await files.writeFile("site/css/app.css", "body { margin: 1px; }\n");
  await files.writeFile("site/js/app.js", "console.log(1);\n");
  await files.writeFile("site/notes.md", "# notes\n");
  await files.writeFile("site (1)/index.html", "<h1>Second</h1>\n");
  await files.writeFile(".gitignore", "node_modules/\n");
  await files.writeFile("node_modules/dep/index.js", "module.exports = {};\n");
  const saveTo = mkdtempSync(path.join(os.tmpdir(), "tandem-e2e-download-"));

  await ide.treeItem("site").click({ button: "right" });
  const folderDownload = page.waitForEvent("download");
  await page.getByTestId("menu-download").click();
  const folderZip = await folderDownload;
  expect(folderZip.suggestedFilename()).toBe("site.zip");
  await folderZip.saveAs(path.join(saveTo, "site.zip"));
  expect(await unzip(path.join(saveTo, "site.zip"))).toEqual({
    "index.html": "<h1>Hello</h1>\n",
    "css/app.css": "body { margin: 1px; }\n",
    "js/app.js": "console.log(1);\n",
    "notes.md": "# notes\n",
  });

  await page.getByTestId("file-tree").click({ button: "right", position: { x: 40, y: 300 } });
  const projectDownload = page.waitForEvent("download");
  await page.getByTestId("menu-download").click();
  const projectZip = await projectDownload;
  expect(projectZip.suggestedFilename()).toBe("Downloads.zip");
  await projectZip.saveAs(path.join(saveTo, "project.zip"));
  const entries = await unzip(path.join(saveTo, "project.zip"));
  expect(Object.keys(entries).sort()).toEqual([
    ".gitignore",
    "site (1)/index.html",
    "site/css/app.css",
    "site/index.html",
    "site/js/app.js",
    "site/notes.md",
  ]);

  if (!(await ide.treeItem("site/notes.md").isVisible())) await ide.treeItem("site").click();
  await ide.treeItem("site/notes.md").click({ button: "right" });
  const fileDownload = page.waitForEvent("download");
  await page.getByTestId("menu-download").click();
  const single = await fileDownload;
  expect(single.suggestedFilename()).toBe("notes.md");
  await single.saveAs(path.join(saveTo, "notes.md"));
  expect(readFileSync(path.join(saveTo, "notes.md"), "utf8")).toBe("# notes\n");
});

test("a new project from an uploaded zip opens with its files; a hostile zip leaves no project behind", async ({
  page,
  ide,
  pageErrors,
}) => {
  // The hostile zip is refused (400), on purpose.
  pageErrors.allow(/status of 400 .*\/api\/projects\/.*\/upload/);
  const files = new ReviewPage(page);
  await ide.signIn(admin);
  await page.goto("/");
  await page.getByTestId("new-project-way-upload").click();
  await page.screenshot({ path: screenshotPath("new-project-upload") });
  await page.getByTestId("new-project-zip-input").setInputFiles({
    name: "starter.zip",
    mimeType: "application/zip",
    buffer: rawZip([
      { name: "starter-main/README.md", data: "# Starter\n" },
      { name: "starter-main/src/main.ts", data: "console.log('hi');\n" },
    ]),
  });
  await expect(page.getByTestId("new-project-upload-name")).toHaveValue("starter");
  await page.getByTestId("create-project-upload").click();
  await expect(page.getByTestId("project-title")).toHaveText("starter");
  await expect(ide.treeItem("README.md")).toBeVisible();
  await files.expectFile("src/main.ts", "console.log('hi');\n");

  await page.goto("/");
  await page.getByTestId("new-project-way-upload").click();
  await page.getByTestId("new-project-zip-input").setInputFiles({
    name: "evil.zip",
    mimeType: "application/zip",
    buffer: rawZip([
      { name: "ok.txt", data: "fine" },
      { name: "../../evil.txt", data: "pwned" },
    ]),
  });
  await page.getByTestId("create-project-upload").click();
  await expect(page.getByTestId("new-project-error")).toContainText("refused");
  await expect(page.getByTestId("project-evil")).toHaveCount(0);
});
